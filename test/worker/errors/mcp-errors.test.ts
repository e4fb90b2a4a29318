/** JSON-RPC error messages carry no "MCP error" prefix, and every non-2xx /mcp answer is a JSON-RPC error in JSON. */
import { beforeAll, describe, expect, it } from "vitest";
import { fetchAs, mcpPrincipal, type Caller } from "../harness";
import { MCP_URL, initializeSession, mcpPost, rpc } from "../helpers";

let token: Caller;
let sessionId: string;
beforeAll(async () => {
  token = mcpPrincipal("ana", "orders.read contracts.read");
  sessionId = await initializeSession(token);
});

describe("JSON-RPC error messages", () => {
  it("an unknown tool's message is ours alone, without the SDK's prefix", async () => {
    const reply = await rpc(token, sessionId, "tools/call", { name: "no_such_tool", arguments: {} });
    expect(reply.error.code).toBe(-32602);
    expect(reply.error.message).toBe(
      'Unknown tool "no_such_tool". Call tools/list to see the tools this server offers.',
    );
    expect(reply.error.message).not.toContain("MCP error");
  });

  it("an unknown resource's message has no prefix either", async () => {
    const reply = await rpc(token, sessionId, "resources/read", { uri: "spec://nothing/here" }, 3);
    expect(reply.error.code).toBe(-32002);
    expect(reply.error.message).not.toContain("MCP error");
  });
});

async function expectJsonRpcError(response: Response, status: number): Promise<Record<string, any>> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await response.json()) as Record<string, any>;
  expect(body.jsonrpc).toBe("2.0");
  expect(typeof body.error.code).toBe("number");
  expect(body.error.message.length).toBeGreaterThan(0);
  return body;
}

describe("transport errors on /mcp", () => {
  it("a POST that does not accept event streams (406)", async () => {
    await expectJsonRpcError(
      await mcpPost(
        token,
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { Accept: "text/html", "mcp-session-id": sessionId },
      ),
      406,
    );
  });

  it("a POST with a non-JSON content type (415)", async () => {
    await expectJsonRpcError(
      await mcpPost(
        token,
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { "Content-Type": "text/plain", "mcp-session-id": sessionId },
      ),
      415,
    );
  });

  it("an unknown session (404)", async () => {
    await expectJsonRpcError(
      await mcpPost(token, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-session-id": "no-such-session" }),
      404,
    );
  });

  it("a method Streamable HTTP does not define", async () => {
    const response = await fetchAs(token, MCP_URL, { method: "PUT", headers: { "mcp-session-id": sessionId } });
    expect(response.status).toBeGreaterThanOrEqual(400);
    await expectJsonRpcError(response, response.status);
  });

  it("a GET without a session", async () => {
    const response = await fetchAs(token, MCP_URL, { headers: { Accept: "text/event-stream" } });
    expect(response.status).toBeGreaterThanOrEqual(400);
    await expectJsonRpcError(response, response.status);
  });
});
