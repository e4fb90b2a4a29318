/**
 * Which protocol era serves a request at /mcp, decided per request from what the client sent, as the SDK v2
 * migration guide describes:
 *  - an Mcp-Session-Id header means a 2025-11-25 session (2026-07-28 has none);
 *  - without a 2026-07-28 signal (the per-request envelope `_meta["io.modelcontextprotocol/protocolVersion"]`,
 *    or an MCP-Protocol-Version header naming a revision after 2025-11-25) the request is 2025-era: initialize,
 *    session requests and notifications, GET streams, DELETE, batches, and bodies that are not JSON-RPC at all
 *    (the session lane answers those exactly as before);
 *  - with a signal, the SDK's own predicate (isLegacyRequest) decides, so this routing never disagrees with the
 *    stateless handler behind it: malformed envelopes and header/body mismatches go to the stateless lane, which
 *    answers them with its protocol errors (-32602, -32020, unsupported version).
 */
import { isLegacyRequest } from "@modelcontextprotocol/server";

export type McpEra = "2025-11-25" | "2026-07-28";

export const ENVELOPE_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
/** The versions the session lane negotiates with initialize (SDK 1.x's list), newest first. */
export const SESSION_ERA_VERSION_LIST = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"] as const;
export const SESSION_ERA_VERSIONS: ReadonlySet<string> = new Set(SESSION_ERA_VERSION_LIST);
/** The versions the stateless lane serves (per-request envelope, no session). */
export const MODERN_ERA_VERSIONS: ReadonlySet<string> = new Set(["2026-07-28"]);

/** Whether one JSON-RPC message carries the 2026-07-28 per-request envelope (its protocol-version key). */
export function claimsEnvelope(message: unknown): boolean {
  const meta = (message as { params?: { _meta?: unknown } } | null)?.params?._meta;
  return typeof meta === "object" && meta !== null && ENVELOPE_VERSION_KEY in meta;
}

function hasModernSignal(request: Request, parsedBody: unknown): boolean {
  const header = request.headers.get("mcp-protocol-version")?.trim();
  if (header && !SESSION_ERA_VERSIONS.has(header)) return true;
  return Array.isArray(parsedBody) ? parsedBody.some(claimsEnvelope) : claimsEnvelope(parsedBody);
}

/** `parsedBody`: the POST body already parsed by the front (undefined for GET and DELETE). */
export async function mcpEraOf(request: Request, parsedBody: unknown, maxRequestBodySize: number): Promise<McpEra> {
  if (request.method !== "POST" || request.headers.has("mcp-session-id") || !hasModernSignal(request, parsedBody))
    return "2025-11-25";
  return (await isLegacyRequest(request, parsedBody, { maxRequestBodySize })) ? "2025-11-25" : "2026-07-28";
}
