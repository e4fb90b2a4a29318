/**
 * The session-id step of the /mcp front: an Mcp-Session-Id that no session of this server can have is answered as
 * an unknown session (404, JSON-RPC -32001) before any lane looks it up. The specification allows visible ASCII
 * (0x21-0x7E) only; this server's ids are 64 hexadecimal characters (a Durable Object id), and the session lane
 * addresses a session's object by a name built from the id, which the runtime refuses past 1,024 bytes (a 3,000
 * character id made every GET a 500). It runs after the compatibility step, which collapses a header sent twice.
 */
import { JSON_RPC_ERROR, jsonRpcErrorResponse } from "../jsonrpc-error";
import type { FrontRequest } from "./front-request";

/** The longest Mcp-Session-Id looked up. */
export const MAX_SESSION_ID_CHARS = 256;
const POSSIBLE_SESSION_ID = new RegExp(`^[\\x21-\\x7e]{1,${MAX_SESSION_ID_CHARS}}$`);

export async function checkSessionId(front: FrontRequest): Promise<Response | undefined> {
  const sessionId = (front.headers ?? front.request.headers).get("mcp-session-id");
  // An empty header is no session id (the lanes treat it so).
  if (!sessionId || POSSIBLE_SESSION_ID.test(sessionId)) return undefined;
  return unknownSession(`session ids are at most ${MAX_SESSION_ID_CHARS} visible ASCII characters`);
}

/**
 * The answer to an Mcp-Session-Id no session of this caller has: the same 404 (JSON-RPC -32001) the session lane
 * gives, whatever the reason, so it tells a caller nothing about other callers' sessions.
 */
export function unknownSession(why = "it ended, or it was never opened by this user and client"): Response {
  return jsonRpcErrorResponse(404, {
    code: JSON_RPC_ERROR.sessionNotFound,
    message: `Session not found: no session of yours has that Mcp-Session-Id (${why}). Start a new session with initialize.`,
  });
}
