/**
 * The body step of the /mcp front: a POST's body is read within MAX_MCP_BODY_BYTES and parsed as JSON before
 * anything else looks at it. A body that is too large, empty, longer than its Content-Length, cut off or not JSON
 * gets a JSON-RPC error that says so (never a 500); GET and DELETE carry none.
 */
import { readBodyLimited } from "../../lib/body";
import { logWarn } from "../../lib/log";
import { JSON_RPC_ERROR, jsonRpcErrorResponse } from "../jsonrpc-error";
import type { FrontRequest } from "./front-request";
import { MAX_MCP_BODY_BYTES } from "./message-bounds";

const parseError = (message: string, data?: Record<string, unknown>) =>
  jsonRpcErrorResponse(400, { code: JSON_RPC_ERROR.parseError, message, ...(data ? { data } : {}) });

/** The body of a POST as text, or the answer to a body that is too large, empty or truncated. */
async function readMcpBody(request: Request): Promise<{ text: string } | { response: Response }> {
  const read = await readBodyLimited(request, MAX_MCP_BODY_BYTES);
  if (read.ok) return { text: new TextDecoder().decode(read.bytes) };
  switch (read.reason) {
    case "too_large":
      return {
        response: jsonRpcErrorResponse(413, {
          code: JSON_RPC_ERROR.serverError,
          message: `Request body too large: the limit is ${MAX_MCP_BODY_BYTES} bytes.`,
        }),
      };
    case "empty":
      return {
        response: parseError("Parse error: the body is empty. Send one JSON-RPC message (or a batch) as JSON."),
      };
    case "length_mismatch":
      return {
        response: parseError(
          "Parse error: the body is longer than its Content-Length. Send the message with a correct Content-Length.",
        ),
      };
    case "truncated": {
      // Usually the client went away mid-body: nobody may read this answer, so the operator's log says it too.
      logWarn("mcp request body truncated", { receivedBytes: read.received, declaredBytes: read.declared });
      const declared = read.declared === undefined ? "" : ` of the ${read.declared} its Content-Length declares`;
      return {
        response: parseError(
          `Parse error: the request body was truncated: it ended after ${read.received} bytes${declared}. Send the whole message again.`,
          { receivedBytes: read.received, ...(read.declared === undefined ? {} : { declaredBytes: read.declared }) },
        ),
      };
    }
  }
}

/** Reads and parses a POST's body into `front.message`. */
export async function readBody(front: FrontRequest): Promise<Response | undefined> {
  if (front.request.method !== "POST") return undefined;
  const read = await readMcpBody(front.request);
  if ("response" in read) return read.response;
  try {
    front.message = { text: read.text, parsed: JSON.parse(read.text) };
  } catch {
    return parseError("Parse error: the body is not valid JSON.");
  }
  return undefined;
}
