/**
 * check_api_draft and compare_contract_versions through the real MCP session: the verdict shape of
 * check_api_conformance with source "draft", nothing stored, the MCP size limit with the way out, and contract
 * comparisons for stored versions and for an edited contract passed as text.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_MCP_DRAFT_BYTES } from "../../../src/contracts/services/drafts";
import {
  callTool,
  connectPrincipal,
  request,
  ciPrincipal,
  text,
  uploadContract,
  type Agent,
  type Caller,
} from "./helpers";

const order = {
  type: "object",
  required: ["id", "total"],
  properties: { id: { type: "string" }, total: { type: "number" } },
};
const contract = {
  openapi: "3.1.0",
  info: { title: "Shop", version: "1.0.0" },
  paths: {
    "/orders/{id}": {
      get: {
        operationId: "getOrder",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "ok", content: { "application/json": { schema: order } } } },
      },
    },
  },
};
/** The agent's first local build: `total` came out as a string. */
const firstDraft = structuredClone(contract);
(
  firstDraft.paths["/orders/{id}"].get.responses["200"].content["application/json"].schema.properties as Record<
    string,
    unknown
  >
).total = { type: "string" };

let agent: Agent;
let ci: Caller;

beforeAll(async () => {
  ci = ciPrincipal("dev");
  await uploadContract(ci, "shop", contract);
  agent = await connectPrincipal("dev");
});

describe("check_api_draft", () => {
  it("is listed read-only and says when to use it and that CI's snapshot stays the verdict of record", async () => {
    const listed = await request(agent, "tools/list");
    const tool = listed.result.tools.find((t: { name: string }) => t.name === "check_api_draft");
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tool.description).toContain("after a local build, before you push");
    expect(tool.description).toContain("remains the verdict of record");
  });

  it("rejects a draft that breaks the contract, approves the fix, and stores neither", async () => {
    const rejected = await callTool(agent, "check_api_draft", {
      project: "shop",
      document: JSON.stringify(firstDraft),
    });
    expect(rejected.isError).toBeFalsy();
    expect(rejected.structuredContent).toMatchObject({
      project: "shop",
      source: "draft",
      approved: false,
      contract: { version: 1 },
    });
    expect(rejected.structuredContent.violations[0]).toMatchObject({ rule: "response-type", severity: "error" });
    expect(text(rejected)).toContain("call check_api_draft again");

    const yaml =
      "openapi: 3.1.0\ninfo: {title: Shop, version: 1.0.0}\npaths:\n  /orders/{id}:\n    get:\n      operationId: getOrder\n      parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {type: object, required: [id, total], properties: {id: {type: string}, total: {type: number}}}\n";
    const approved = await callTool(agent, "check_api_draft", { project: "shop", document: yaml });
    expect(approved.structuredContent).toMatchObject({ approved: true, source: "draft" });
    expect(approved.structuredContent.violations.filter((v: { severity: string }) => v.severity === "error")).toEqual(
      [],
    );
    const asObject = await callTool(agent, "check_api_draft", { project: "shop", document: contract });
    expect(asObject.structuredContent.approved).toBe(true);

    const snapshots = await callTool(agent, "spec_snapshots_list", { project: "shop" });
    expect(snapshots.structuredContent.snapshots).toEqual([]);
  });

  it("refuses a draft over the MCP limit and points to the REST route and the CLI", async () => {
    const big = { ...contract, info: { ...contract.info, description: "x".repeat(MAX_MCP_DRAFT_BYTES) } };
    const result = await callTool(agent, "check_api_draft", { project: "shop", document: big });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("at most 1 MiB");
    expect(text(result)).toContain("arbiter check FILE");
    expect(text(result)).toContain("POST /api/v1/projects/<project>/drafts");
  });

  it("says what is wrong with a document that is not OpenAPI", async () => {
    const result = await callTool(agent, "check_api_draft", { project: "shop", document: "{ not json" });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("The draft is not a valid OpenAPI document");
  });
});

describe("compare_contract_versions", () => {
  it("shows what an edited contract breaks before it is uploaded, and compares stored versions", async () => {
    const edited = await callTool(agent, "compare_contract_versions", {
      project: "shop",
      document: JSON.stringify(firstDraft),
    });
    expect(edited.structuredContent).toMatchObject({
      from: { version: 1 },
      to: { version: null },
      breakingChanges: 1,
      approved: false,
    });
    expect(edited.structuredContent.to.digest).toMatch(/^sha256:/);
    expect(text(edited)).toContain("Arbiter contract changelog");

    await uploadContract(ci, "shop", firstDraft);
    const stored = await callTool(agent, "compare_contract_versions", { project: "shop", from: 1, to: 2 });
    expect(stored.structuredContent).toMatchObject({ from: { version: 1 }, to: { version: 2 }, breakingChanges: 1 });
    const back = await callTool(agent, "compare_contract_versions", { project: "shop", from: 2, to: 1 });
    expect(back.structuredContent.breakingChanges).toBe(1);
  });

  it("needs exactly one of to or document", async () => {
    const reply = await request(agent, "tools/call", {
      name: "compare_contract_versions",
      arguments: { project: "shop" },
    });
    const result = reply.result ?? {};
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("pass exactly one of to (a stored version) or document (an edited contract)");
  });
});
