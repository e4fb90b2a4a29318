/**
 * check_api_conformance through MCP after CI uploads over REST: approved, approved: false as a normal result, and
 * every "cannot verify" case as isError with its next step.
 */
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { ContractStore } from "../../../src/contracts/store/durable-object";
import { projectStoreName } from "../../../src/contracts/store/project-homes";
import { conformingSnapshot, ordersContract, violatingSnapshot } from "./fixtures";
import {
  callTool,
  connectPrincipal,
  recordFailedBuild,
  request,
  ciPrincipal,
  text,
  uploadContract,
  uploadSnapshot,
  workerEnv,
  type Agent,
  type Caller,
} from "./helpers";

let ci: Caller;
let agent: Agent;

beforeAll(async () => {
  ci = ciPrincipal("ana");
  agent = await connectPrincipal("ana");
});

describe("check_api_conformance", () => {
  it("is listed as read-only, telling the model when to call it and what approved: false means", async () => {
    const listed = await request(agent, "tools/list");
    const tool = (listed.result.tools as Array<Record<string, any>>).find(
      (entry) => entry.name === "check_api_conformance",
    );
    expect(tool).toBeDefined();
    expect(tool!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    const description = tool!.description as string;
    expect(description).toContain("Call it before you mark an implementation task done");
    expect(description).toContain(
      "approved: false means the implementation breaks the contract: this is a normal result, not a failure of the tool",
    );
    expect(description).toContain("violations lists each breach");
  });

  it("returns the verdict of the latest snapshot against the active contract", async () => {
    await uploadContract(ci, "orders", ordersContract(), "003-orders");
    const upload = await uploadSnapshot(ci, "orders", conformingSnapshot(), "c0ffee1");
    expect(upload.verdict.approved).toBe(true);

    const result = await callTool(agent, "check_api_conformance", { project: "orders" });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({
      project: "orders",
      approved: true,
      totalViolations: upload.verdict.totalViolations,
      contract: { version: 1, label: "003-orders" },
      snapshot: { id: upload.snapshot.id, commit: "c0ffee1", branch: "main" },
      source: "stored",
      resource: "spec://projects/orders/verdicts/latest",
    });
    expect(text(result)).toContain("Approved");
  });

  it("reports a rejected implementation as a normal result with violations and Markdown", async () => {
    const upload = await uploadSnapshot(ci, "orders", violatingSnapshot(), "bad0001");
    expect(upload.verdict.approved).toBe(false);

    const result = await callTool(agent, "check_api_conformance", { project: "orders" });
    expect(result.isError).toBeUndefined();
    const verdict = result.structuredContent;
    expect(verdict.approved).toBe(false);
    expect(verdict.snapshot.commit).toBe("bad0001");
    expect(verdict.violations).toContainEqual(
      expect.objectContaining({
        rule: "missing-operation",
        severity: "error",
        location: expect.stringContaining("GET /orders/{id}"),
      }),
    );
    expect(verdict.violations).toEqual(upload.verdict.violations);
    expect(verdict.summary).toEqual(upload.verdict.summary);
    expect(text(result)).toContain("## Arbiter conformance: ❌ Rejected");
    expect(text(result)).toContain("`missing-operation`");
    expect(text(result)).toContain("approved: false");
  });

  it("checks a given snapshot", async () => {
    const first = await callTool(agent, "check_api_conformance", { project: "orders", snapshot: 1 });
    expect(first.structuredContent).toMatchObject({
      approved: true,
      snapshot: { id: 1, number: 1, commit: "c0ffee1" },
    });
    expect(text(first)).toContain("snapshot 1 of orders (id 1, commit c0ffee1)");
  });

  it("checks against a given contract version, computing the verdict when the snapshot was checked against another", async () => {
    // v2 drops DELETE /orders/{id}: the conforming snapshot 1 now has an undocumented operation.
    const v2 = ordersContract("Orders v2") as { paths: Record<string, Record<string, unknown>> };
    delete v2.paths["/orders/{id}"]!.delete;
    await uploadContract(ci, "orders", v2);
    const result = await callTool(agent, "check_api_conformance", { project: "orders", snapshot: 1 });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ approved: false, contract: { version: 2 }, source: "computed" });
    expect(result.structuredContent.violations).toContainEqual(
      expect.objectContaining({
        rule: "undocumented-operation",
        location: expect.stringContaining("DELETE /orders/{"),
      }),
    );

    const againstV1 = await callTool(agent, "check_api_conformance", {
      project: "orders",
      snapshot: 1,
      contractVersion: 1,
    });
    expect(againstV1.structuredContent).toMatchObject({ approved: true, contract: { version: 1 }, source: "stored" });
  });
});

describe("check_api_conformance when the check cannot run", () => {
  function expectCannotVerify(result: Record<string, any>, reason: string, message: RegExp) {
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta.cannotVerify).toBe(reason);
    expect(text(result)).toMatch(message);
  }

  it("no such project: says how to find or create one", async () => {
    const result = await callTool(agent, "check_api_conformance", { project: "nope" });
    expectCannotVerify(
      result,
      "unknown_project",
      /no project "nope".*POST \/api\/v1\/projects\/nope\/contracts.*spec_projects_list/,
    );
  });

  it("no project given and none selected", async () => {
    const fresh = await connectPrincipal("ana");
    const result = await callTool(fresh, "check_api_conformance", {});
    expectCannotVerify(result, "no_project_selected", /spec_project_select/);
  });

  it("no snapshot yet: upload one from CI", async () => {
    await uploadContract(ci, "no-snapshot-yet", ordersContract("Ledger"));
    const result = await callTool(agent, "check_api_conformance", { project: "no-snapshot-yet" });
    expectCannotVerify(result, "no_snapshot", /no snapshot yet: upload one from CI/);
  });

  it("last build failed: names the commit and asks to fix the build first", async () => {
    await uploadContract(ci, "shipping", ordersContract("Shipping"));
    await uploadSnapshot(ci, "shipping", conformingSnapshot(), "aaa1111");
    await recordFailedBuild(ci, "shipping", "bbb2222", "compiling...\nerror CS1002: ; expected");
    const result = await callTool(agent, "check_api_conformance", { project: "shipping" });
    expectCannotVerify(result, "build_failed", /last build failed at bbb2222: fix the build first/);
    expect(result._meta).toMatchObject({
      failedCommit: "bbb2222",
      buildLogTail: "compiling...\nerror CS1002: ; expected",
    });
    expect(text(result)).not.toContain("CS1002");

    // The snapshot before the failed build can still be checked explicitly, and a new snapshot clears the state.
    expect(
      (
        await callTool(agent, "check_api_conformance", {
          project: "shipping",
          snapshot: (await latestSnapshotId("shipping"))!,
        })
      ).structuredContent.approved,
    ).toBe(true);
    await uploadSnapshot(ci, "shipping", conformingSnapshot(), "ccc3333");
    expect((await callTool(agent, "check_api_conformance", { project: "shipping" })).structuredContent).toMatchObject({
      approved: true,
      snapshot: { commit: "ccc3333" },
    });
  });

  it("last build failed on a branch: the required wording stays intact, the branch and CI run follow it", async () => {
    await uploadContract(ci, "returns", ordersContract("Returns"));
    await uploadSnapshot(ci, "returns", conformingSnapshot(), "eee5555");
    await recordFailedBuild(ci, "returns", "fff6666", "error TS2304", {
      branch: "feature/refunds",
      runUrl: "https://ci.example.com/runs/42",
    });
    const result = await callTool(agent, "check_api_conformance", { project: "returns" });
    expectCannotVerify(result, "build_failed", /last build failed at fff6666: fix the build first/);
    const message = text(result);
    const required = message.indexOf("last build failed at fff6666: fix the build first");
    expect(message.indexOf("feature/refunds")).toBeGreaterThan(required);
    expect(message.indexOf("https://ci.example.com/runs/42")).toBeGreaterThan(required);
    expect(result._meta).toMatchObject({ failedCommit: "fff6666" });
  });

  it("unknown snapshot or contract version", async () => {
    expectCannotVerify(
      await callTool(agent, "check_api_conformance", { project: "orders", snapshot: 999 }),
      "unknown_snapshot",
      /no snapshot 999.*spec_snapshots_list/,
    );
    expectCannotVerify(
      await callTool(agent, "check_api_conformance", { project: "orders", contractVersion: 77 }),
      "unknown_contract",
      /no contract version 77.*spec_contracts_list/,
    );
  });

  it("no active contract", async () => {
    await uploadContract(ci, "legacy", ordersContract("Legacy"));
    // Every upload activates its contract, so this state only arises from storage outside the API; set it directly.
    await runInDurableObject(store("legacy"), async (_instance, state) => {
      state.storage.sql.exec("UPDATE projects SET active_contract_id = NULL WHERE name = 'legacy'");
    });
    const result = await callTool(agent, "check_api_conformance", { project: "legacy" });
    expectCannotVerify(result, "no_active_contract", /no active contract.*upload one/);
  });

  it("a stored document that cannot be read", async () => {
    await uploadContract(ci, "damaged", ordersContract("Damaged"));
    await uploadSnapshot(ci, "damaged", conformingSnapshot(), "ddd4444");
    const v2 = ordersContract("Damaged v2");
    const upload = await uploadContract(ci, "damaged", v2);
    await runInDurableObject(store("damaged"), async (_instance, state) => {
      state.storage.sql.exec(
        "UPDATE blob_chunks SET data = ? WHERE hash = ?",
        new TextEncoder().encode("{ not json").buffer,
        upload.contract.contentHash,
      );
    });
    // Snapshot 1 was checked against v1; checking it against the damaged v2 needs v2's document.
    const result = await callTool(agent, "check_api_conformance", { project: "damaged" });
    expectCannotVerify(
      result,
      "document_unreadable",
      /contract v2 of "damaged" cannot be read: upload the contract again/,
    );
  });
});

/** The project's own store (src/contracts/store/project-homes.ts). */
function store(project: string) {
  return workerEnv.CONTRACT_STORE.get(
    workerEnv.CONTRACT_STORE.idFromName(projectStoreName("acme", project)),
  ) as unknown as DurableObjectStub<ContractStore>;
}

async function latestSnapshotId(project: string): Promise<number | null> {
  return runInDurableObject(
    store(project),
    async (instance: ContractStore) => (await instance.getProject(project))?.latestSnapshotId ?? null,
  );
}
