/**
 * REST errors are RFC 9457 problem details (`application/problem+json`):
 *   { type, title, status, detail, code, correlationId?, details?, error: { code, message, correlationId?, details? } }
 * `code`, `correlationId` and `details` are extension members: `code` is the stable, machine-readable reason
 * (`type` is the same reason as a URI). `error` repeats the pre-problem+json shape for one release so existing
 * clients keep working (README "REST errors"); new clients read the top-level members.
 */
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

export function apiError(status: number, code: string, message: string, extra: { correlationId?: string; headers?: HeadersInit; details?: unknown } = {}): Response {
  const headers = new Headers(extra.headers);
  headers.set("Cache-Control", "no-store");
  headers.set("Content-Type", PROBLEM_CONTENT_TYPE);
  const correlation = extra.correlationId ? { correlationId: extra.correlationId } : {};
  const details = extra.details === undefined ? {} : { details: extra.details };
  const problem = {
    type: problemType(code),
    title: statusTitle(status),
    status,
    detail: message,
    code,
    ...correlation,
    ...details,
    error: { code, message, ...correlation, ...details },
  };
  return new Response(JSON.stringify(problem), { status, headers });
}

/** The stable `code` of one of our error answers (problem+json or the compatibility member), if it is one. */
export async function problemCode(response: Response): Promise<string | undefined> {
  if (!(response.headers.get("content-type") ?? "").includes("json")) return undefined;
  const body = (await response.clone().json().catch(() => null)) as { code?: unknown; error?: unknown } | null;
  if (typeof body?.code === "string") return body.code;
  if (body?.error && typeof body.error === "object" && typeof (body.error as { code?: unknown }).code === "string") return (body.error as { code: string }).code;
  return undefined;
}
