// Misshapen params of tools/call, prompts/get and the resource methods, through both lanes of the real Worker: a
// -32602 naming the field (src/mcp/front/message-params.ts), where both SDKs answered -32603 "internal error" with a
// schema library's issue list. Well-formed calls are answered as before.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { auditTrailIn } from "../../../src/audit/trail";
import { initializeSession, MODERN_ENVELOPE, MODERN_ERA, mcpPost, obtainTokens, readRpc, rpc } from "../helpers";

/** acme's audit records of one request, once stored (the session lane's outbox drains them a few seconds later). */
async function recordsOf(correlationId: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const page = await auditTrailIn(env.AUDIT_LOG)("acme").query("acme", { correlationId, limit: 10 });
    if (page.events.length > 0 || Date.now() > deadline) return page.events;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const SCOPES = "orders.read orders.search contracts.read";

async function statelessRpc(token: string, method: string, params: Record<string, unknown>) {
  const response = await mcpPost(
    token,
    { jsonrpc: "2.0", id: 3, method, params: { ...params, _meta: MODERN_ENVELOPE } },
    { "MCP-Protocol-Version": MODERN_ERA, "Mcp-Method": method, "Mcp-Name": String(params.name ?? params.uri ?? "") },
  );
  expect(response.status).toBe(200);
  return (await readRpc(response))[0]!;
}

describe("misshapen params, in both lanes", () => {
  it("2025-11-25 sessions: -32602 with what to send, and the session goes on", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: SCOPES });
    const token = tokens.access_token;
    const session = await initializeSession(token);
    const cases: Array<[string, unknown, string]> = [
      ["tools/call", { name: "whoami", arguments: "x" }, "params.arguments must be an object"],
      ["tools/call", { name: "whoami", arguments: null }, "not null"],
      [
        "prompts/get",
        { name: "ask_orders", arguments: { question: 123 } },
        "params.arguments.question must be a string",
      ],
      ["resources/read", { uri: 5 }, "params.uri must be a string"],
      ["tools/list", { cursor: 5 }, "params.cursor must be the nextCursor string"],
      ["logging/setLevel", { level: null }, "params.level must be one of"],
    ];
    for (const [method, params, expected] of cases) {
      const reply = await rpc(token, session, method, params, 11);
      expect(reply.error?.code, `${method} ${JSON.stringify(params)}`).toBe(-32602);
      expect(reply.error.message).toContain(expected);
    }
    const fine = await rpc(token, session, "tools/call", { name: "whoami", arguments: {} }, 12);
    expect(fine.result?.isError).toBeFalsy();
  });

  it("initialize: -32602 naming the field, and no session is opened", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: SCOPES });
    const response = await mcpPost(tokens.access_token, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: "all" },
    });
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const [reply] = await readRpc(response);
    expect(reply!.error.code).toBe(-32602);
    expect(reply!.error.message).toContain("params.capabilities must be an object");
  });

  it("a misshapen call of a tool of this server leaves its audit record, as every tool call does", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: SCOPES });
    const response = await mcpPost(
      tokens.access_token,
      {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "whoami", arguments: ["x"], _meta: MODERN_ENVELOPE },
      },
      { "MCP-Protocol-Version": MODERN_ERA, "Mcp-Method": "tools/call", "Mcp-Name": "whoami" },
    );
    expect((await readRpc(response))[0]!.error.code).toBe(-32602);
    const [record] = await recordsOf(response.headers.get("X-Correlation-Id")!);
    expect(record).toMatchObject({
      kind: "tool",
      target: "whoami",
      outcome: "invalid-input",
      reason: "tools/call: misshapen params",
    });
  });

  it("2026-07-28 stateless requests: the same answers", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: SCOPES });
    const token = tokens.access_token;
    const array = await statelessRpc(token, "tools/call", { name: "whoami", arguments: [] });
    expect(array.error?.code).toBe(-32602);
    expect(array.error.message).toContain("params.arguments must be an object");
    const prompt = await statelessRpc(token, "prompts/get", { name: "ask_orders", arguments: { question: [] } });
    expect(prompt.error?.code).toBe(-32602);
    expect(prompt.error.message).toContain("params.arguments.question must be a string");
    const list = await statelessRpc(token, "resources/list", { cursor: [] });
    expect(list.error?.code).toBe(-32602);
    expect(list.error.message).toContain("params.cursor must be the nextCursor string");
    const fine = await statelessRpc(token, "tools/call", { name: "whoami", arguments: {} });
    expect(fine.result?.isError).toBeFalsy();
  });
});
