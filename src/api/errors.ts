/** REST errors have one stable shape: `{ "error": { "code", "message", "correlationId"? } }`. */
export function apiError(status: number, code: string, message: string, extra: { correlationId?: string; headers?: HeadersInit; details?: unknown } = {}): Response {
  const headers = new Headers(extra.headers);
  headers.set("Cache-Control", "no-store");
  return Response.json(
    { error: { code, message, ...(extra.correlationId ? { correlationId: extra.correlationId } : {}), ...(extra.details === undefined ? {} : { details: extra.details }) } },
    { status, headers },
  );
}
