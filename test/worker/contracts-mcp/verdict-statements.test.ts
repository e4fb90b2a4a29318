/**
 * A snapshot approved against contract v1 is not approved against v2: after v2 becomes active, every place that
 * states the snapshot's verdict (the spec_driven_task prompt, spec_project_select, the latest-verdict resource,
 * the console's project list, project page and verdict page) names v1 and says v2 is active and what to do.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { signedIn, visibleText } from "../console/console-helpers";
import { conformingSnapshot, ordersContract } from "./fixtures";
import {
  callTool,
  ciPrincipal,
  connectPrincipal,
  request,
  text,
  uploadContract,
  uploadSnapshot,
  type Agent,
} from "./helpers";

let agent: Agent;
let verdictId: number;

/** v2 adds an operation: not breaking for clients, so it becomes active, but the v1 implementation lacks it. */
function ordersV2(): Record<string, unknown> {
  const doc = structuredClone(ordersContract()) as { paths: Record<string, unknown> };
  doc.paths["/orders/{id}/refunds"] = {
    post: {
      operationId: "refundOrder",
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      responses: { "201": { description: "created" } },
    },
  };
  return doc;
}

beforeAll(async () => {
  const ci = ciPrincipal("ana");
  agent = await connectPrincipal("ana");
  await uploadContract(ci, "orders", ordersContract(), "001-orders");
  const snapshot = await uploadSnapshot(ci, "orders", conformingSnapshot(), "aaa0001");
  expect(snapshot.verdict.approved).toBe(true);
  verdictId = snapshot.snapshot.verdictId;
  const v2 = await uploadContract(ci, "orders", ordersV2(), "002-orders");
  expect(v2.contract).toMatchObject({ version: 2, active: true });
});

describe("a snapshot judged against a contract version that is no longer active", () => {
  it("the spec_driven_task prompt names v1 and says v2 is active and what to do", async () => {
    const reply = await request(agent, "prompts/get", { name: "spec_driven_task", arguments: { project: "orders" } });
    const message = reply.result.messages[0].content.text as string;
    expect(message).toContain("approved against contract v1");
    expect(message).toContain("Contract v2 is active now, so this verdict (against v1) says nothing about v2");
    expect(message).toMatch(/re-check the snapshot against v2 \(check_api_conformance for "orders"/);
  });

  it("spec_project_select states the version and whether it is the active one; check_api_conformance says rejected against v2", async () => {
    const selected = await callTool(agent, "spec_project_select", { project: "orders" });
    expect(selected.structuredContent.latestSnapshot).toMatchObject({
      approved: true,
      contractVersion: 1,
      judgedAgainstActive: false,
    });
    expect(text(selected)).toContain("approved against contract v1. Contract v2 is active now");
    const check = await callTool(agent, "check_api_conformance", { project: "orders" });
    expect(check.structuredContent).toMatchObject({ approved: false, contract: { version: 2 } });
    expect(text(check)).toContain("does not conform to contract v2 (002-orders), the active one");
  });

  it("the latest-verdict resource carries the active version and the note", async () => {
    const read = await request(agent, "resources/read", { uri: "spec://projects/orders/verdicts/latest" });
    const body = JSON.parse(read.result.contents[0].text);
    expect(body).toMatchObject({ contractVersion: 1, activeContractVersion: 2, judgedAgainstActive: false });
    expect(body.note).toContain("says nothing about v2");
  });

  it("the console labels each verdict by what it judged and flags the one judged against v1", async () => {
    const ana = await signedIn("ana");
    const list = visibleText((await ana.get("/admin/projects")).text);
    expect(list).toContain(
      "approved snapshot 1 against contract v1 v2 is active not judged against v2: re-check, or wait for CI",
    );
    expect(list).toContain("contract v2 against the constitution");
    const page = (await ana.get("/admin/projects/orders")).text;
    const row = visibleText(page.split("<tr>").find((r) => r.includes("aaa0001"))!);
    expect(row).toContain("v1 v2 is active not judged against v2");
    expect(row).toContain("snapshot 1 against contract v1");
    expect(visibleText(page)).toContain("contract v2 against the constitution");
    const verdict = visibleText((await ana.get(`/admin/projects/orders/verdicts/${verdictId}`)).text);
    expect(verdict).toContain("Judged snapshot 1 against contract v1 not the active contract");
  });
});
