/**
 * The MCP clients of bench:mcp and bench:coldstart, raw fetch so no client library's cost is measured: a
 * 2025-11-25 session (`initialize`, `notifications/initialized`, then calls with the Mcp-Session-Id) or a
 * 2026-07-28 stateless client (every request carries the `_meta` envelope). A call fails unless it is a
 * successful tool result.
 */
export const SESSION_ERA = "2025-11-25";
export const STATELESS_ERA = "2026-07-28";
export type Era = typeof SESSION_ERA | typeof STATELESS_ERA;

export interface Session {
  call(tool: string, id: number): Promise<void>;
}

/** Reads a Streamable HTTP answer (JSON or SSE) and fails unless it is a successful tool result. */
async function expectToolResult(response: Response, tool: string): Promise<void> {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${tool}: HTTP ${response.status}: ${text.slice(0, 300)}`);
  const json = response.headers.get("content-type")?.includes("text/event-stream")
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
        .filter(Boolean)
        .at(-1)
    : text;
  const message = JSON.parse(json ?? "null") as {
    result?: { isError?: boolean; content?: Array<{ text?: string }> };
    error?: { message: string };
  };
  if (message?.error) throw new Error(`${tool}: JSON-RPC error ${message.error.message}`);
  if (!message?.result || message.result.isError)
    throw new Error(`${tool}: tool error: ${message?.result?.content?.[0]?.text ?? text.slice(0, 300)}`);
}

const BASE_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

/** A 2025-11-25 session: initialize, notifications/initialized, then every call carries the Mcp-Session-Id. */
async function openSessionEra(base: string, token: string): Promise<Session> {
  const headers: Record<string, string> = { ...BASE_HEADERS, Authorization: `Bearer ${token}` };
  const init = await fetch(`${base}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: SESSION_ERA, capabilities: {}, clientInfo: { name: "bench-mcp", version: "1.0.0" } },
    }),
  });
  const sessionId = init.headers.get("mcp-session-id");
  await init.text();
  if (init.status !== 200 || !sessionId) throw new Error(`initialize failed: HTTP ${init.status}`);
  const sessionHeaders = { ...headers, "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": SESSION_ERA };
  const initialized = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: sessionHeaders,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await initialized.text();
  return {
    async call(tool, id) {
      const response = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: sessionHeaders,
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: tool, arguments: {} } }),
      });
      await expectToolResult(response, tool);
    },
  };
}

/** A 2026-07-28 client: no handshake; every request carries the protocol envelope in `_meta` and its own headers. */
function statelessClient(base: string, token: string): Session {
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": STATELESS_ERA,
    "io.modelcontextprotocol/clientInfo": { name: "bench-mcp", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return {
    async call(tool, id) {
      const response = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: {
          ...BASE_HEADERS,
          Authorization: `Bearer ${token}`,
          "MCP-Protocol-Version": STATELESS_ERA,
          "Mcp-Method": "tools/call",
          "Mcp-Name": tool,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: tool, arguments: {}, _meta: envelope },
        }),
      });
      await expectToolResult(response, tool);
    },
  };
}

export async function openSession(base: string, token: string, era: Era): Promise<Session> {
  return era === SESSION_ERA ? openSessionEra(base, token) : statelessClient(base, token);
}
