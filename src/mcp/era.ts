/**
 * Which protocol era serves a request at /mcp, decided per request from what the client sent, the way the
 * SDK v2 migration guide prescribes: a request that carries the 2026-07-28 per-request envelope
 * (`_meta["io.modelcontextprotocol/protocolVersion"]`, or a modern MCP-Protocol-Version header) goes to the
 * stateless lane; everything else (initialize, requests and notifications of an Mcp-Session-Id session,
 * GET streams, DELETE, batches, posted responses) is 2025-era and goes to the McpAgent session lane.
 *
 * The SDK's own predicate decides, so this routing can never disagree with the stateless handler behind it:
 * malformed envelopes and header/body mismatches count as 2026-07-28 so that lane answers them with its
 * protocol errors (-32602, -32020, unsupported version) instead of the session lane guessing.
 */
import { isLegacyRequest } from "@modelcontextprotocol/server";

export type McpEra = "2025-11-25" | "2026-07-28";

/** `parsedBody`: the POST body already parsed by the front (undefined for GET and DELETE). */
export async function mcpEraOf(request: Request, parsedBody: unknown, maxRequestBodySize: number): Promise<McpEra> {
  const legacy = request.method === "POST" ? await isLegacyRequest(request, parsedBody, { maxRequestBodySize }) : true;
  return legacy ? "2025-11-25" : "2026-07-28";
}
