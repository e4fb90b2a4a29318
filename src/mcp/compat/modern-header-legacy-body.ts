/**
 * Tolerance "modern-header-session-era-body": claude.ai, after an initialize that settles on 2025-11-25, sends its
 * follow-up requests without Mcp-Session-Id, with the header `MCP-Protocol-Version: 2026-07-28` and a 2025-style
 * body (no `_meta` protocol envelope). By the specification that is a malformed 2026-07-28 request (400, -32602),
 * and the official conformance suite checks exactly that refusal for a generic client, so the tolerance is not
 * blanket: it applies only when the token was issued to claude.ai's OAuth client, recognised by what the client
 * registered (its callback on claude.ai or claude.com) or by its Client ID Metadata Document URL on those hosts.
 * Such a request is then served as the session-less 2025-era request it is written as.
 */
import { claimsEnvelope, MODERN_ERA_VERSIONS } from "../era";
import { sessionlessKind } from "./sessionless";

/** claude.ai's OAuth callbacks, as it registers them by Dynamic Client Registration. */
export const CLAUDE_AI_CALLBACKS: ReadonlySet<string> = new Set([
  "https://claude.ai/api/mcp/auth_callback",
  "https://claude.com/api/mcp/auth_callback",
]);
const CLAUDE_AI_HOSTS: ReadonlySet<string> = new Set(["claude.ai", "claude.com"]);

/** What the front knows of an OAuth client: its registered redirect URIs (null when there is no such client). */
export type ClientRedirects = (clientId: string) => Promise<readonly string[] | null>;

/**
 * Whether a request has the pattern's shape: a POST without a session id whose header names a 2026-era version,
 * carrying 2025-era JSON-RPC requests or notifications (never an initialize) with no protocol envelope.
 */
export function hasModernHeaderWithSessionEraBody(method: string, headers: Headers, body: unknown): boolean {
  if (method !== "POST" || headers.has("mcp-session-id")) return false;
  const version = headers.get("mcp-protocol-version")?.trim();
  if (version === undefined || !MODERN_ERA_VERSIONS.has(version)) return false;
  if (sessionlessKind(body) === "none") return false;
  const messages = Array.isArray(body) ? body : [body];
  return !messages.some(claimsEnvelope);
}

function isClaudeAiMetadataUrl(clientId: string): boolean {
  if (!clientId.startsWith("https://")) return false;
  try {
    return CLAUDE_AI_HOSTS.has(new URL(clientId).hostname);
  } catch {
    return false;
  }
}

/** Answers per OAuth client id, per isolate: a client's registration does not change its redirect URIs. */
const known = new Map<string, boolean>();
const MAX_KNOWN = 1000;

/** Whether the token's OAuth client is claude.ai's (a failed look-up counts as not). */
export async function isClaudeAiClient(clientId: string, redirectsOf: ClientRedirects): Promise<boolean> {
  if (isClaudeAiMetadataUrl(clientId)) return true;
  const cached = known.get(clientId);
  if (cached !== undefined) return cached;
  let answer = false;
  try {
    answer = ((await redirectsOf(clientId)) ?? []).some((uri) => CLAUDE_AI_CALLBACKS.has(uri));
  } catch {
    return false;
  }
  if (known.size >= MAX_KNOWN) known.clear();
  known.set(clientId, answer);
  return answer;
}
