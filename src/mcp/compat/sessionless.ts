/**
 * Tolerance "sessionless-session-request": which 2025-era POSTs without an Mcp-Session-Id are served on their
 * own by the stateless lane instead of being refused with 400. Only JSON-RPC requests and notifications qualify,
 * and never an initialize (which opens a session as before); posted responses and bodies that are not JSON-RPC
 * keep the session lane's errors.
 */
export type SessionlessKind = "none" | "requests" | "notifications-only";

function isMessage(value: unknown): value is { method: string; id?: unknown } {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    (value as { jsonrpc?: unknown }).jsonrpc === "2.0" &&
    typeof (value as { method?: unknown }).method === "string"
  );
}

/** `body`: the parsed POST body of a request the era routing sends to the session lane, without a session id. */
export function sessionlessKind(body: unknown): SessionlessKind {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || !messages.every(isMessage)) return "none";
  if (messages.some((message) => message.method === "initialize")) return "none";
  return messages.some((message) => "id" in message) ? "requests" : "notifications-only";
}
