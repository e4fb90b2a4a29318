/**
 * The name a tolerated deviation is logged and counted under: what the client says it is (clientInfo of an
 * initialize or of a 2026-07-28 envelope), else the product in its User-Agent, else its OAuth client id. Client
 * text: reduced to a short run of printable characters so it cannot forge log lines or grow the counters.
 */
const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo";
const MAX_NAME = 64;

function clean(text: unknown): string | undefined {
  if (typeof text !== "string") return undefined;
  const printable = text
    .replace(/[^\x20-\x7e]+/g, " ")
    .trim()
    .slice(0, MAX_NAME);
  return printable === "" ? undefined : printable;
}

function clientInfoName(body: unknown): string | undefined {
  const first = Array.isArray(body) ? body[0] : body;
  if (typeof first !== "object" || first === null) return undefined;
  const params = (first as { params?: { clientInfo?: { name?: unknown }; _meta?: Record<string, unknown> } }).params;
  const fromEnvelope = params?._meta?.[CLIENT_INFO_KEY] as { name?: unknown } | undefined;
  return clean(params?.clientInfo?.name) ?? clean(fromEnvelope?.name);
}

/** "openai-mcp/1.0.0 (ChatGPT)" -> "openai-mcp/1.0.0 (ChatGPT)"; "node" -> "node". */
function userAgentName(userAgent: string | null): string | undefined {
  return clean(userAgent ?? undefined);
}

export function clientNameOf(body: unknown, userAgent: string | null, oauthClientId: string): string {
  return clientInfoName(body) ?? userAgentName(userAgent) ?? `oauth client ${clean(oauthClientId) ?? "unknown"}`;
}

/**
 * Methods of either protocol revision a deviation is counted under by name; any other method is the caller's own
 * word (one token could invent a new one per request) and counts as "other".
 */
const KNOWN_METHODS = new Set([
  "initialize",
  "ping",
  "server/discover",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "subscriptions/listen",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "notifications/initialized",
  "notifications/cancelled",
  "notifications/progress",
  "notifications/roots/list_changed",
]);
const HTTP_METHODS = new Set(["GET", "POST", "DELETE"]);

/** The request kind a deviation is counted under: the JSON-RPC method (a batch: its first), else the HTTP method. */
export function requestKindOf(method: string, body: unknown): string {
  const first = Array.isArray(body) ? body[0] : body;
  const rpc = typeof first === "object" && first !== null ? (first as { method?: unknown }).method : undefined;
  if (rpc !== undefined) return typeof rpc === "string" && KNOWN_METHODS.has(rpc) ? rpc : "other";
  return HTTP_METHODS.has(method) ? method : "other";
}
