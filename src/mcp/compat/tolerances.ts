/**
 * The one table of the real clients' known deviations that the compatibility front at /mcp tolerates (front.ts
 * applies them, in this order, before the era routing). Each entry says which clients send the deviation (with the
 * public source), what Arbiter does, and why that is safe. The tolerance table in docs/clients.md is this table; a test
 * (test/worker/mcp/compat-front.test.ts) checks that every id here is documented there. Everything not listed
 * keeps the specification's error. To drop a rule once its clients are fixed: remove its entry and its module;
 * the counts (GET /api/v1/mcp/tolerances) say who still needs it.
 */
export interface Tolerance {
  readonly id: ToleranceId;
  readonly clients: string;
  readonly source: string;
  readonly action: string;
  readonly safety: string;
}

export type ToleranceId =
  | "duplicate-header"
  | "envelope-with-session-era-header"
  | "session-with-other-version-header"
  | "sessionless-session-request"
  | "modern-header-session-era-body"
  | "json-only-accept";

export const TOLERANCES: readonly Tolerance[] = Object.freeze([
  {
    id: "duplicate-header",
    clients: "proxies in front of clients, Claude Code",
    source: "different-ai/openwork#3944, lowdefy/lowdefy#2345",
    action:
      "MCP-Protocol-Version or Mcp-Session-Id sent twice (comma-joined) with identical copies is read as one value; conflicting copies get a 400 naming both values",
    safety: "identical copies say nothing new; the collapsed value is then checked exactly like a single header",
  },
  {
    id: "envelope-with-session-era-header",
    clients: "claude.ai connectors (also Claude Desktop and Claude Code through a connector)",
    source: "anthropics/claude-code#93290",
    action:
      "a request carrying a supported 2026-07-28 `_meta` envelope whose MCP-Protocol-Version header names a session-era version (2024-11-05 to 2025-11-25) is served by the envelope, as 2026-07-28",
    safety:
      "the envelope is the stronger, per-message statement and names a version this URL serves; an unknown or unsupported header, or an envelope naming an unsupported version, still gets the specification's error",
  },
  {
    id: "session-with-other-version-header",
    clients: "claude.ai connectors, Claude Code",
    source: "CodeWithCJ/SparkyFitness#2155, anthropics/claude-code#92835",
    action:
      "on a request with a session id, a header naming another version this URL serves (2026-07-28 after initialize negotiated 2025-11-25) is read as the session's negotiated version",
    safety:
      "the session was negotiated by initialize and behaves the same whatever the header says; an unknown version still gets 400, an unknown or ended session still 404",
  },
  {
    id: "sessionless-session-request",
    clients: "claude.ai connectors (User-Agent Claude-User), ChatGPT (openai-mcp)",
    source:
      "anthropics/claude-ai-mcp#975, anthropics/claude-ai-mcp#583, anthropics/claude-ai-mcp#99, modelcontextprotocol/ext-apps#647",
    action:
      "a 2025-era request without a session id that is not initialize is served on its own, statelessly, through the same governed front (token, scopes, rate limit, audit); a notification without a session gets 202",
    safety:
      "the stateless lane serves the same catalog through the same governed core as every other request; what needs a session (resource subscriptions, the GET stream) gets that lane's error; a request naming an unknown or ended session still gets 404",
  },
  {
    id: "modern-header-session-era-body",
    clients:
      "claude.ai connectors (its OAuth client only: the callback https://claude.ai/api/mcp/auth_callback or https://claude.com/api/mcp/auth_callback, or a Client ID Metadata Document on those hosts)",
    source: "CodeWithCJ/SparkyFitness#2155, anthropics/claude-ai-mcp#975, anthropics/claude-ai-mcp#583",
    action:
      "a request without a session id whose header says 2026-07-28 but whose body is 2025-style (no `_meta` protocol envelope, not initialize) is served as the session-era request it is written as, statelessly, through the same governed front as `sessionless-session-request`",
    safety:
      "applied only to tokens issued to claude.ai's OAuth client, so every other client keeps the specification's 400 / -32602 (which the conformance suite checks); the request is then governed exactly like any other session-less request",
  },
  {
    id: "json-only-accept",
    clients: "claude.ai connectors and Claude Desktop, Claude Code and the Claude Agent SDK",
    source: "NateBJones-Projects/OB1#33, anthropics/claude-code#28414, homeassistant-ai/ha-mcp#750",
    action:
      "a 2025-era POST whose Accept is `*/*` or `application/json` without `text/event-stream` gets its answer as one JSON body instead of 406 (the 2026-07-28 lane answers such a client itself)",
    safety:
      "a JSON body is what the client asked for; only mid-call progress notifications, which such a client could not read anyway, are left out",
  },
]);

export function toleranceById(id: ToleranceId): Tolerance {
  const found = TOLERANCES.find((tolerance) => tolerance.id === id);
  if (!found) throw new Error(`no tolerance ${id}`);
  return found;
}
