/**
 * What one POST to /mcp may carry, checked by the front before anything reaches a session. Pure: takes the
 * parsed body, returns the first bound it breaks (or nothing).
 *
 * Why these numbers: the session transport (McpAgent's StreamableHTTPServerTransport) keeps the ids of the
 * requests of one POST in the WebSocket attachment of that POST's stream, which workerd caps at 16,384 bytes.
 * A POST whose ids do not fit is never answered (the transport throws after the request was accepted), so
 * the bounds keep the worst case inside that cap with room to spare: 25 ids of 256 characters take at most
 * 25 x 256 x 2 bytes (two bytes per UTF-16 unit outside Latin-1) = 12,800 bytes, plus the attachment's own
 * ~200 bytes. Numeric ids take 9 bytes each.
 */

import { JSON_RPC_ERROR, jsonRpcErrorResponse } from "../jsonrpc-error";
import type { FrontRequest } from "./front-request";

/** Requests larger than this are refused before parsing (4 MiB, the same bound McpAgent applies). */
export const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

/** A string JSON-RPC id may hold at most this many characters (UTF-16 code units, as JavaScript counts them). */
export const MAX_JSONRPC_ID_CHARS = 256;

/** A JSON-RPC batch may hold at most this many messages. (Protocol 2025-06-18 and later send no batches at all.) */
export const MAX_BATCH_MESSAGES = 25;

export type MessageBound = "batch-length" | "id-length";

export interface BoundViolation {
  bound: MessageBound;
  /** The bound's value. */
  limit: number;
  /** What this body carried. */
  actual: number;
  /** Says which limit, its value and how to stay inside it. */
  message: string;
}

/** The first bound `body` (the parsed JSON of one POST) breaks, or undefined when it keeps them all. */
export function checkMessageBounds(body: unknown): BoundViolation | undefined {
  const messages = Array.isArray(body) ? body : [body];
  if (Array.isArray(body) && body.length > MAX_BATCH_MESSAGES) {
    return {
      bound: "batch-length",
      limit: MAX_BATCH_MESSAGES,
      actual: body.length,
      message: `Invalid Request: a JSON-RPC batch may hold at most ${MAX_BATCH_MESSAGES} messages; this one holds ${body.length}. Send the messages in smaller batches, or one per request.`,
    };
  }
  for (const message of messages) {
    const id = message && typeof message === "object" ? (message as { id?: unknown }).id : undefined;
    if (typeof id === "string" && id.length > MAX_JSONRPC_ID_CHARS) {
      return {
        bound: "id-length",
        limit: MAX_JSONRPC_ID_CHARS,
        actual: id.length,
        message: `Invalid Request: a JSON-RPC id may hold at most ${MAX_JSONRPC_ID_CHARS} characters; this one holds ${id.length}. Use a shorter id (a number or a short string).`,
      };
    }
  }
  return undefined;
}

/** The bounds step of the /mcp front: a message out of these bounds is refused before anything reads it further. */
export async function checkBounds(front: FrontRequest): Promise<Response | undefined> {
  if (!front.message) return undefined;
  const outOfBounds = checkMessageBounds(front.message.parsed);
  if (!outOfBounds) return undefined;
  return jsonRpcErrorResponse(400, {
    code: JSON_RPC_ERROR.invalidRequest,
    message: outOfBounds.message,
    data: { limit: outOfBounds.bound, max: outOfBounds.limit, actual: outOfBounds.actual },
  });
}
