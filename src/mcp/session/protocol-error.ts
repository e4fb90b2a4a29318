/**
 * JSON-RPC errors for MCP handlers. SDK 1.x's McpError writes "MCP error <code>: " in front of its message and
 * the Protocol sends `error.message` as it is, so the wire message carried the prefix and clients (which wrap the
 * answer in their own McpError) showed it twice. This keeps the McpError class (and its `code` and `data`) and
 * sends only our message.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

export function protocolError(code: number, message: string, data?: unknown): McpError {
  const error = new McpError(code, message, data);
  error.message = message;
  return error;
}

/** -32602 (invalid params) with our message: what capability modules throw, so they need no SDK import. */
export function invalidParams(message: string): McpError {
  return protocolError(ErrorCode.InvalidParams, message);
}
