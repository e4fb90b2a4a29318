/**
 * One organization never sees another's projects over MCP: gus against ana's (acme) project "orders", through
 * every tool, resource, template listing, subscription and the prompt. Run with gus in a seeded organization
 * (globex) and in one the operator created at runtime (hooli, src/directory/). The other organization has its own
 * "orders" too, so a leak would show acme's content, not an error.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { conformingSnapshot, GOOD_ORDER, ordersContract, violatingSnapshot } from "./fixtures";
import {
  callTool,
  connectPrincipal,
  request,
  ciPrincipal,
  text,
  uploadContract,
  uploadSnapshot,
  workerEnv,
  type Agent,
} from "./helpers";
import { contractStore } from "../../../src/contracts/store/client";
import { operator } from "../directory/helpers";
import { mcpPost } from "../helpers";

const OTHERS = [
  { label: "globex (seeded)", organizationId: "globex", created: false },
  { label: "hooli (created at runtime)", organizationId: "hooli", created: true },
] as const;

let ana: Agent;

beforeAll(async () => {
  const acmeCi = ciPrincipal("ana");
  await uploadContract(acmeCi, "orders", ordersContract("Acme Orders"));
  await uploadSnapshot(acmeCi, "orders", violatingSnapshot(), "acme001");
  await uploadContract(acmeCi, "acme-only", ordersContract("Acme only"));
  ana = await connectPrincipal("ana");
});

describe.each(OTHERS)("cross-organization access over MCP from $label", ({ organizationId, created }) => {
  let gus: Agent;
  beforeAll(async () => {
    if (created)
      expect(
        (
          await operator("POST", "/organizations", {
            id: organizationId,
            name: "Hooli",
            emailDomains: ["hooli.example"],
          })
        ).status,
      ).toBe(201);
    const otherCi = ciPrincipal("gus", undefined, organizationId);
    await uploadContract(otherCi, "orders", ordersContract("Globex Orders"));
    await uploadSnapshot(otherCi, "orders", conformingSnapshot(), "globex01");
    gus = await connectPrincipal("gus", undefined, organizationId);
  });

  it("project lists show only the caller's organization", async () => {
    expect(
      (await callTool(ana, "spec_projects_list")).structuredContent.projects.map((p: { name: string }) => p.name),
    ).toEqual(["acme-only", "orders"]);
    expect(
      (await callTool(gus, "spec_projects_list")).structuredContent.projects.map((p: { name: string }) => p.name),
    ).toEqual(["orders"]);
  });

  it("tools answer about the caller's own project of that name, never the other's", async () => {
    const acme = await callTool(ana, "check_api_conformance", { project: "orders" });
    const globex = await callTool(gus, "check_api_conformance", { project: "orders" });
    expect(acme.structuredContent).toMatchObject({ approved: false, snapshot: { commit: "acme001" } });
    expect(globex.structuredContent).toMatchObject({ approved: true, snapshot: { commit: "globex01" } });
    const got = await callTool(gus, "spec_contract_get", { project: "orders" });
    expect(JSON.parse(got.structuredContent.document).info.title).toBe("Globex Orders");
  });

  it("another organization's project does not exist for the caller, in every tool", async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ["check_api_conformance", { project: "acme-only" }],
      [
        "validate_response_payload",
        { project: "acme-only", method: "GET", path: "/orders/1", status: 200, payload: GOOD_ORDER },
      ],
      ["spec_contracts_list", { project: "acme-only" }],
      ["spec_snapshots_list", { project: "acme-only" }],
      ["spec_contract_get", { project: "acme-only" }],
      ["spec_project_select", { project: "acme-only" }],
    ];
    for (const [name, args] of calls) {
      const result = await callTool(gus, name, args);
      expect(result.isError, name).toBe(true);
      expect(text(result), name).toMatch(/no project "acme-only" in your organization/);
      expect(text(result), name).not.toContain("Acme only");
    }
  });

  it("resources, listings and the prompt refuse or omit the other organization's projects", async () => {
    for (const uri of [
      "spec://projects/acme-only/contracts/1",
      "spec://projects/acme-only/contracts/active",
      "spec://projects/acme-only/verdicts/latest",
      "spec://projects/acme-only/verdicts/1",
    ]) {
      const reply = await request(gus, "resources/read", { uri });
      expect(reply.error?.message, uri).toMatch(/no project "acme-only"/);
    }
    const globexContract = await request(gus, "resources/read", { uri: "spec://projects/orders/contracts/1" });
    expect(JSON.parse(globexContract.result.contents[0].text).info.title).toBe("Globex Orders");
    const listed = (await request(gus, "resources/list")).result.resources.map((r: { uri: string }) => r.uri);
    expect(listed.filter((uri: string) => uri.includes("acme-only"))).toEqual([]);
    const prompt = await request(gus, "prompts/get", { name: "spec_driven_task", arguments: { project: "acme-only" } });
    expect(prompt.error?.message).toMatch(/no project "acme-only"/);
  });

  it("a subscription to another organization's project is refused and recorded nowhere", async () => {
    const reply = await request(gus, "resources/subscribe", { uri: "spec://projects/acme-only/verdicts/latest" });
    expect(reply.error?.message).toMatch(/no project "acme-only"/);
    expect(await contractStore(workerEnv, "acme").subscribers("acme-only")).toEqual([]);
    expect(await contractStore(workerEnv, organizationId).subscribers("acme-only")).toEqual([]);
  });

  it("a session belongs to its owner: another organization's token gets the unknown-session answer", async () => {
    const res = await mcpPost(
      gus.token,
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "spec_projects_list", arguments: {} } },
      { "mcp-session-id": ana.session, "mcp-protocol-version": "2025-11-25" },
    );
    expect(res.status).toBe(404);
    const refusal = await res.text();
    expect(JSON.parse(refusal)).toMatchObject({
      error: { code: -32001, message: expect.stringMatching(/^Session not found: no session of yours/) },
    });
    expect(refusal).not.toContain("acme-only");
  });
});
