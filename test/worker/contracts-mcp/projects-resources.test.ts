/**
 * Project tools, the per-user default project and the spec:// resources and prompt through MCP.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { conformingSnapshot, ordersContract, violatingSnapshot } from "./fixtures";
import {
  callTool,
  connectPrincipal,
  request,
  ciPrincipal,
  text,
  uploadContract,
  uploadSnapshot,
  type Agent,
  type Caller,
} from "./helpers";

let ci: Caller;
let agent: Agent;

beforeAll(async () => {
  ci = ciPrincipal("ana");
  agent = await connectPrincipal("ana");
  await uploadContract(ci, "orders", ordersContract(), "001-orders");
  await uploadContract(ci, "orders", ordersContract("Orders 2"), "002-orders");
  await uploadSnapshot(ci, "orders", conformingSnapshot(), "aaa0001");
  await uploadSnapshot(ci, "orders", violatingSnapshot(), "aaa0002");
  await uploadContract(ci, "billing", ordersContract("Billing"));
});

describe("project tools", () => {
  it("lists the organization's projects", async () => {
    const result = await callTool(agent, "spec_projects_list");
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent.projects.map((p: { name: string }) => p.name)).toEqual(["billing", "orders"]);
    expect(result.structuredContent.projects[1]).toMatchObject({
      name: "orders",
      activeContractVersion: 2,
      contractCount: 2,
      snapshotCount: 2,
    });
    expect(result.structuredContent.selectedProject).toBeNull();
    expect(result.structuredContent.nextAfter).toBeNull();
  });

  it("pages the projects by name: nextAfter is the after of the next page, null on the last", async () => {
    const first = await callTool(agent, "spec_projects_list", { limit: 1 });
    expect(first.structuredContent.projects.map((p: { name: string }) => p.name)).toEqual(["billing"]);
    expect(first.structuredContent.nextAfter).toBe("billing");
    expect(text(first)).toContain('call spec_projects_list with after "billing"');
    const second = await callTool(agent, "spec_projects_list", { limit: 1, after: "billing" });
    expect(second.structuredContent.projects.map((p: { name: string }) => p.name)).toEqual(["orders"]);
    expect(second.structuredContent.nextAfter).toBeNull();
    const past = await callTool(agent, "spec_projects_list", { after: "orders" });
    expect(past.structuredContent.projects).toEqual([]);
    expect(text(past)).toBe('There are no projects after "orders".');
    const bad = await callTool(agent, "spec_projects_list", { limit: 101 });
    expect(bad.isError).toBe(true);
  });

  it("lists contracts and snapshots of a project, newest first, with a cursor", async () => {
    const contracts = await callTool(agent, "spec_contracts_list", { project: "orders" });
    expect(
      contracts.structuredContent.contracts.map((c: { version: number; active: boolean; label: string }) => [
        c.version,
        c.active,
        c.label,
      ]),
    ).toEqual([
      [2, true, "002-orders"],
      [1, false, "001-orders"],
    ]);
    const page = await callTool(agent, "spec_snapshots_list", { project: "orders", limit: 1 });
    expect(page.structuredContent.snapshots).toHaveLength(1);
    expect(page.structuredContent.snapshots[0]).toMatchObject({
      commit: "aaa0002",
      approved: false,
      contractVersion: 2,
    });
    const older = await callTool(agent, "spec_snapshots_list", {
      project: "orders",
      limit: 1,
      before: page.structuredContent.nextBefore,
    });
    expect(older.structuredContent.snapshots[0]).toMatchObject({ commit: "aaa0001", approved: true });
  });

  it("spec://active/contract needs a default project and says how to set one", async () => {
    const fresh = await connectPrincipal("ana");
    const reply = await request(fresh, "resources/read", { uri: "spec://active/contract" });
    expect(reply.error?.message).toMatch(/no default project.*spec_project_select/);
  });

  it("selecting a project makes it the default of the tools and of spec://active/contract", async () => {
    const session = await connectPrincipal("ana");
    const selected = await callTool(session, "spec_project_select", { project: "orders" });
    expect(selected.structuredContent).toMatchObject({
      project: "orders",
      activeContract: { version: 2, label: "002-orders" },
      latestSnapshot: { commit: "aaa0002", approved: false },
      lastBuildFailed: false,
      resources: { activeContract: "spec://active/contract", latestVerdict: "spec://projects/orders/verdicts/latest" },
    });

    const check = await callTool(session, "check_api_conformance");
    expect(check.structuredContent).toMatchObject({ project: "orders", approved: false });
    const contracts = await callTool(session, "spec_contracts_list");
    expect(contracts.structuredContent.project).toBe("orders");
    expect((await callTool(session, "spec_projects_list")).structuredContent.selectedProject).toBe("orders");

    const read = await request(session, "resources/read", { uri: "spec://active/contract" });
    expect(read.error).toBeUndefined();
    expect(read.result.contents[0].mimeType).toBe("application/json");
    expect(JSON.parse(read.result.contents[0].text)).toEqual(ordersContract("Orders 2"));

    const got = await callTool(session, "spec_contract_get");
    expect(got.structuredContent).toMatchObject({
      contract: { version: 2, active: true },
      resource: "spec://projects/orders/contracts/2",
    });
    expect(JSON.parse(got.structuredContent.document)).toEqual(ordersContract("Orders 2"));

    // Switching projects switches the defaults. The default is the user's (2026-07-28 clients have no session):
    // another session of the same user follows it, another user of the organization has none.
    await callTool(session, "spec_project_select", { project: "billing" });
    const billing = await request(session, "resources/read", { uri: "spec://active/contract" });
    expect(JSON.parse(billing.result.contents[0].text).info.title).toBe("Billing");
    const sameUser = await request(agent, "resources/read", { uri: "spec://active/contract" });
    expect(JSON.parse(sameUser.result.contents[0].text).info.title).toBe("Billing");
    const otherUser = await connectPrincipal("dev");
    expect((await request(otherUser, "resources/read", { uri: "spec://active/contract" })).error?.message).toMatch(
      /no default project/,
    );
  });

  it("refuses to select a project that does not exist", async () => {
    const result = await callTool(agent, "spec_project_select", { project: "nothing-here" });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/no project "nothing-here".*spec_projects_list/);
    const invalid = await callTool(agent, "spec_project_select", { project: "Not A Name" });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/project:/);
  });
});

describe("resources", () => {
  it("lists the static resource, the templates and concrete resources", async () => {
    const templates = await request(agent, "resources/templates/list");
    expect(templates.result.resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate)).toEqual(
      expect.arrayContaining([
        "spec://projects/{project}/contracts/{version}",
        "spec://projects/{project}/verdicts/latest",
        "spec://projects/{project}/verdicts/{snapshot}",
      ]),
    );
    const list = await request(agent, "resources/list");
    const uris = list.result.resources.map((r: { uri: string }) => r.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        "spec://active/contract",
        "spec://projects/orders/contracts/1",
        "spec://projects/orders/contracts/2",
        "spec://projects/billing/contracts/1",
        "spec://projects/orders/verdicts/latest",
        "spec://projects/orders/verdicts/1",
        "spec://projects/orders/verdicts/2",
      ]),
    );
    expect(uris).not.toContain("spec://projects/billing/verdicts/latest");
  });

  it("walks the projects a page at a time: a project after the first hundred by name is listed", async () => {
    // A hundred and five projects without contracts (as rows of the organization's store), then one with a contract
    // and a snapshot whose name sorts after them all.
    await runInDurableObject(
      env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName("globex")),
      async (_instance, state) => {
        for (let i = 0; i < 105; i++)
          state.storage.sql.exec(
            "INSERT INTO projects (name, created_at, created_by, active_contract_id) VALUES (?, ?, 'gus', NULL)",
            `empty-${String(i).padStart(3, "0")}`,
            new Date().toISOString(),
          );
      },
    );
    const gusCi = ciPrincipal("gus", undefined, "globex");
    await uploadContract(gusCi, "zz-late", ordersContract("Late"));
    await uploadSnapshot(gusCi, "zz-late", conformingSnapshot(), "late001");
    const uris = (await request(await connectPrincipal("gus"), "resources/list")).result.resources.map(
      (r: { uri: string }) => r.uri,
    );
    expect(uris).toEqual(
      expect.arrayContaining([
        "spec://projects/zz-late/contracts/1",
        "spec://projects/zz-late/verdicts/latest",
        expect.stringMatching(/^spec:\/\/projects\/zz-late\/verdicts\/\d+$/),
      ]),
    );
    expect(uris.filter((uri: string) => uri.includes("/empty-"))).toEqual([]);
  });

  it("reads contract versions by number or as active", async () => {
    const v1 = await request(agent, "resources/read", { uri: "spec://projects/orders/contracts/1" });
    expect(JSON.parse(v1.result.contents[0].text)).toEqual(ordersContract());
    const active = await request(agent, "resources/read", { uri: "spec://projects/orders/contracts/active" });
    expect(JSON.parse(active.result.contents[0].text).info.title).toBe("Orders 2");
    const missing = await request(agent, "resources/read", { uri: "spec://projects/orders/contracts/9" });
    expect(missing.error.message).toMatch(/no contract version 9/);
    const bad = await request(agent, "resources/read", { uri: "spec://projects/orders/contracts/first" });
    expect(bad.error.message).toMatch(/Invalid contract version "first"/);
  });

  it("reads verdicts by snapshot and the latest verdict", async () => {
    const latest = await request(agent, "resources/read", { uri: "spec://projects/orders/verdicts/latest" });
    const body = JSON.parse(latest.result.contents[0].text);
    expect(body).toMatchObject({
      project: "orders",
      snapshot: { commit: "aaa0002" },
      contractVersion: 2,
      verdict: { approved: false },
    });
    expect(body.verdict.violations).toContainEqual(expect.objectContaining({ rule: "missing-operation" }));
    const first = await request(agent, "resources/read", { uri: "spec://projects/orders/verdicts/1" });
    expect(JSON.parse(first.result.contents[0].text)).toMatchObject({
      snapshot: { id: 1, commit: "aaa0001" },
      verdict: { approved: true },
    });
    const none = await request(agent, "resources/read", { uri: "spec://projects/billing/verdicts/latest" });
    expect(none.error.message).toMatch(/no snapshot yet: upload one from CI/);
  });
});

describe("spec-driven prompt", () => {
  it("is listed with a project argument", async () => {
    const list = await request(agent, "prompts/list");
    const prompt = list.result.prompts.find((p: { name: string }) => p.name === "spec_driven_task");
    expect(prompt.arguments).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "project", required: true })]),
    );
  });

  it("tells the model to read the contract first and check conformance before calling the task done", async () => {
    const reply = await request(agent, "prompts/get", {
      name: "spec_driven_task",
      arguments: { project: "orders", task: "add order cancellation" },
    });
    const message = reply.result.messages[0].content.text as string;
    expect(message).toContain("Task: add order cancellation");
    expect(message).toContain("The active contract is v2 (002-orders)");
    expect(message).toMatch(/read the contract \(resource spec:\/\/active\/contract/);
    expect(message).toMatch(/Before you call the task done, call check_api_conformance/);
    expect(message.indexOf("read the contract")).toBeLessThan(message.indexOf("check_api_conformance"));
  });

  it("refuses an unknown project with the next step", async () => {
    const reply = await request(agent, "prompts/get", { name: "spec_driven_task", arguments: { project: "ghost" } });
    expect(reply.error.message).toMatch(/no project "ghost"/);
  });
});
