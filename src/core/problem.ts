/**
 * REST errors are RFC 9457 problem details (`application/problem+json`):
 *   { type, title, status, detail, code, correlationId?, details?, error: { code, message, correlationId?, details? } }
 * `code`, `correlationId` and `details` are extension members: `code` is the stable, machine-readable reason
 * (`type` is the same reason as a URI). `error` repeats the pre-problem+json shape for one release so existing
 * clients keep working (docs/ci.md "REST errors"); new clients read the top-level members.
 */
import type { Failure } from "./failure";
import { failureAsProblem } from "./failure-mapping";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** The problem type URI of a code: stable, and unique per code (RFC 9457 §3.1.1 allows a non-dereferenceable URI). */
export function problemType(code: string): string {
  return `urn:arbiter:problem:${code}`;
}

const STATUS_TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export function statusTitle(status: number): string {
  return STATUS_TITLES[status] ?? (status >= 500 ? "Server Error" : "Client Error");
}

/**
 * The REST answer to a Failure of the governed core, from the one mapping (src/core/failure-mapping.ts). With the
 * request's correlation id (the REST router always passes it), the body names its occurrence: `correlationId`, also
 * as the RFC 9457 `instance`, so a person can quote it from the body alone.
 */
export function failureProblem(
  failure: Failure,
  extraHeaders: Record<string, string> = {},
  correlationId?: string,
): Response {
  const shape = failureAsProblem(failure);
  const headers = new Headers({ ...shape.headers, ...extraHeaders });
  headers.set("Cache-Control", "no-store");
  headers.set("Content-Type", PROBLEM_CONTENT_TYPE);
  const details = shape.details === undefined ? {} : { details: shape.details };
  const problem = {
    type: problemType(shape.code),
    title: statusTitle(shape.status),
    status: shape.status,
    detail: shape.message,
    code: shape.code,
    ...details,
    error: { code: shape.code, message: shape.message, ...details, ...(correlationId ? { correlationId } : {}) },
    ...(correlationId ? { instance: `urn:uuid:${correlationId}`, correlationId } : {}),
  };
  return new Response(JSON.stringify(problem), { status: shape.status, headers });
}
