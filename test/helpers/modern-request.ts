/**
 * One 2026-07-28 (stateless) JSON-RPC request to a running Worker's /mcp over HTTP, for node tests and benchmarks:
 * the protocol version, method and name headers that era requires, and the per-request envelope in `params._meta`.
 * (Worker tests have `modernPost` in test/worker/helpers.ts, which goes through the harness instead.)
 */
export const MODERN_ERA = "2026-07-28";

export function modernRequest(
  base: string,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
  id = 1,
): Promise<Response> {
  const named = typeof params.name === "string" ? params.name : undefined;
  return fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": MODERN_ERA,
      "Mcp-Method": method,
      ...(named === undefined ? {} : { "Mcp-Name": named }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN_ERA,
          "io.modelcontextprotocol/clientInfo": { name: "arbiter-test", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
}
