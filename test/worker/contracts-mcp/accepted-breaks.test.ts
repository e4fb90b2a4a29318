/**
 * Accepted breaks and usage evidence over MCP: the verdict's error carries how often recorded traffic called its
 * operation; spec_break_accept (contracts.write) accepts the change a verdict names by its
 * fingerprint, check_api_conformance then answers the project's latest snapshot approved with the change accepted
 * (the stored verdict is checked again, since it predates the acceptance), the 2026-07-28 lane takes the same call,
 * and a caller with contracts.read only is refused.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { modernPost, readRpc } from "../helpers";
import { mcpPrincipal } from "../harness";
import { ordersContract, violatingSnapshot } from "./fixtures";
import {
  type Agent,
  callTool,
  ciPrincipal,
  connectPrincipal,
  uploadContract,
  uploadExchanges,
  uploadSnapshot,
} from "./helpers";

const PROJECT = "accepting";
let writer: Agent;

beforeAll(async () => {
  const ci = ciPrincipal("ana");
  await uploadContract(ci, PROJECT, ordersContract());
  await uploadExchanges(
    ci,
    PROJECT,
    `${JSON.stringify({ method: "GET", path: "/orders/ord_1001", status: 200, responseBody: { id: "ord_1001", total: 2 } })}\n`,
    "application/x-ndjson",
  );
  await uploadSnapshot(ci, PROJECT, violatingSnapshot(), "b0rk3n1");
  writer = await connectPrincipal("ana", "contracts.read contracts.write");
});

describe("accepting a break over MCP", () => {
  it("accepts the change by the fingerprint the verdict gives, and the next check is approved naming it", async () => {
    const before = await callTool(writer, "check_api_conformance", { project: PROJECT });
    expect(before.structuredContent.approved).toBe(false);
    const error = before.structuredContent.violations.find((v: any) => v.severity === "error");
    expect(error.fingerprint).toMatch(/^bc-[0-9a-f]{16}$/);
    // The usage evidence of the recorded traffic, in the structured content.
    expect(error.usage).toEqual({ days: 30, exchanges: 1 });

    const accepted = await callTool(writer, "spec_break_accept", {
      project: PROJECT,
      fingerprint: error.fingerprint,
      reason: "the v2 service takes this operation",
      expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10),
    });
    expect(accepted.isError).toBeFalsy();
    const id = accepted.structuredContent.acceptedBreak.id;
    expect(accepted.structuredContent.acceptedBreak).toMatchObject({ rule: error.rule, owner: "ana" });

    const after = await callTool(writer, "check_api_conformance", { project: PROJECT });
    expect(after.structuredContent.approved).toBe(true);
    expect(after.structuredContent.violations).toContainEqual(
      expect.objectContaining({
        severity: "accepted",
        fingerprint: error.fingerprint,
        acceptance: expect.objectContaining({ id }),
      }),
    );

    const listed = await callTool(writer, "spec_accepted_breaks_list", { project: PROJECT });
    expect(listed.structuredContent.acceptedBreaks.map((a: any) => [a.id, a.state])).toEqual([[id, "in-force"]]);
  });

  it("answers the same in the 2026-07-28 lane, and refuses a caller without contracts.write in both", async () => {
    const stateless = await readRpc(
      await modernPost(
        mcpPrincipal("ana", "contracts.read"),
        "tools/call",
        {
          name: "spec_accepted_breaks_list",
          arguments: { project: PROJECT },
        },
        { "Mcp-Param-Project": PROJECT },
      ),
    );
    expect(stateless[0]!.result?.structuredContent, JSON.stringify(stateless[0])).toBeDefined();
    expect(stateless[0]!.result.structuredContent.acceptedBreaks).toHaveLength(1);

    const reader = await connectPrincipal("dev", "contracts.read");
    const args = {
      project: PROJECT,
      rule: "missing-operation",
      location: "GET /x",
      reason: "mine",
      expiresAt: "2099-01-01",
    };
    const refused = await callTool(reader, "spec_break_accept", args).catch((error: Error) => error.message);
    expect(JSON.stringify(refused)).toContain("contracts.write");
    const refusedStateless = await modernPost(
      mcpPrincipal("dev", "contracts.read"),
      "tools/call",
      {
        name: "spec_break_accept",
        arguments: args,
      },
      { "Mcp-Param-Project": PROJECT },
    );
    expect(JSON.stringify(await readRpc(refusedStateless).catch(() => refusedStateless.status))).toMatch(
      /contracts\.write|403/,
    );
  });
});
