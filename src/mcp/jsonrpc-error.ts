/**
 * The one place a JSON-RPC error body is built (the /mcp front, the listen hub), with the error codes by name. What a
 * governed Failure becomes is decided by the core's table (src/core/failure-mapping.ts failureAsJsonRpcError); this
 * module only wraps an error object into the JSON-RPC response and the HTTP answer that carries it.
 */

/** JSON-RPC 2.0 error codes Arbiter answers with: the specification's, and the server range MCP uses. */
export const JSON_RPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** A server error without a more precise code (too large, refused upstream of the server). */
  serverError: -32000,
  /** MCP: the session named by Mcp-Session-Id does not exist (any more). */
  sessionNotFound: -32001,
} as const;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** A JSON-RPC error response for the request `id` (null when it has none or it cannot be read). */
export function jsonRpcErrorBody(id: unknown, error: JsonRpcErrorObject) {
  return {
    jsonrpc: "2.0" as const,
    id: typeof id === "string" || typeof id === "number" ? id : null,
    error: { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) },
  };
}

/** An HTTP answer carrying one JSON-RPC error (the status is the transport's; clients that ignore it read the body). */
export function jsonRpcErrorResponse(
  status: number,
  error: JsonRpcErrorObject,
  init: { id?: unknown; headers?: HeadersInit } = {},
): Response {
  return Response.json(jsonRpcErrorBody(init.id ?? null, error), {
    status,
    ...(init.headers ? { headers: init.headers } : {}),
  });
}
