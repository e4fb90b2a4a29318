/**
 * The one place a Failure becomes an answer: an MCP tool result (`isError: true`), a JSON-RPC error (resources,
 * prompts, subscriptions, in both eras) or a REST problem (RFC 9457). Status, audit outcome and JSON-RPC code come
 * from the kind's row in FAILURE_CLASSES, so every surface agrees on what a failure is; the correlation id of the
 * request is in every answer.
 */
import { FAILURE_CLASSES, type Failure } from "./failure";

export interface ToolErrorResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  isError: true;
  _meta: Record<string, unknown>;
}

export interface JsonRpcErrorShape {
  code: number;
  message: string;
  data: Record<string, unknown>;
}

export interface ProblemShape {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  headers: Record<string, string>;
}

/** Headers a failure asks for on HTTP, whatever carries it (Retry-After of a rate limit). */
function failureHeaders(failure: Failure): Record<string, string> {
  const retryAfter = failure.details.retryAfter;
  return failure.kind === "rate_limited" && typeof retryAfter === "number" ? { "Retry-After": String(retryAfter) } : {};
}

/** A tool call that failed: the message names the correlation id, `_meta` carries the code and the details. */
export function failureAsToolResult(failure: Failure, correlationId: string): ToolErrorResult {
  return {
    content: [{ type: "text", text: `${failure.message} (correlation id ${correlationId})` }],
    isError: true,
    _meta: { correlationId, ...(failure.code === failure.kind ? {} : { code: failure.code }), ...failure.details },
  };
}

/** A resource, prompt or subscription request that failed, as the JSON-RPC error both SDK lines send. */
export function failureAsJsonRpcError(failure: Failure, correlationId: string): JsonRpcErrorShape {
  const row = FAILURE_CLASSES[failure.kind];
  const message =
    failure.kind === "internal" ? `${failure.message} (correlation id ${correlationId})` : failure.message;
  return { code: row.jsonRpcCode, message, data: { code: failure.code, correlationId, ...failure.details } };
}

/** A REST answer: status from the kind, the stable code, the details; the router adds the correlation id. */
export function failureAsProblem(failure: Failure): ProblemShape {
  const details = Object.keys(failure.details).length > 0 ? { details: failure.details } : {};
  return {
    status: failure.status,
    code: failure.code,
    message: failure.message,
    ...details,
    headers: failureHeaders(failure),
  };
}
