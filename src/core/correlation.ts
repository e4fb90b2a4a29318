/**
 * One correlation id per request: made by the surface's front (the /mcp handler, the REST router) as the request
 * arrives, sent back in the `X-Correlation-Id` header, carried to the session's Durable Object in the same header
 * (the front replaces any copy a client sent), and written into the answer, the audit record and the log.
 */
export const CORRELATION_HEADER = "X-Correlation-Id";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function newCorrelationId(): string {
  return crypto.randomUUID();
}

/** The id the front put on a forwarded request; a fresh one when there is none (a request that did not come through it). */
export function forwardedCorrelationId(value: string | readonly string[] | null | undefined): string {
  const first = typeof value === "string" ? value : value?.[0];
  return first && UUID.test(first) ? first : newCorrelationId();
}
