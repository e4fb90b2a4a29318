/**
 * The span and metric attributes Arbiter exports, and only these: every attribute goes through `safeAttributes`,
 * which drops any other key and any value that is not a short string, number or boolean. What they may hold is
 * decided here, once: organization ids, operation names, outcomes, the rate-limit decision, correlation ids,
 * status codes and sizes. Never a token, a user id or name, an argument, upstream text or document content.
 */
export const ATTRIBUTE_KEYS = [
  "arbiter.organization",
  "arbiter.operation",
  "arbiter.operation.kind",
  "arbiter.outcome",
  "arbiter.refusal.reason",
  "arbiter.ratelimit.decision",
  "arbiter.ratelimit.source",
  "arbiter.correlation_id",
  "arbiter.verdict.outcome",
  "arbiter.upload.bytes",
  "arbiter.engine.phase",
  "arbiter.audit.path",
  "rpc.system",
  "rpc.service",
  "rpc.method",
  "db.system",
  "db.operation.name",
  "http.request.method",
  "http.response.status_code",
  "graphql.operation.name",
  "graphql.operation.type",
  "error.type",
] as const;

export type AttributeKey = (typeof ATTRIBUTE_KEYS)[number];
export type AttributeValue = string | number | boolean;
export type Attributes = Partial<Record<AttributeKey, AttributeValue>>;

const ALLOWED = new Set<string>(ATTRIBUTE_KEYS);
const MAX_STRING = 200;

/** The allowed, well-formed attributes of `input` (anything else is dropped, never exported). */
export function safeAttributes(input: Attributes): Attributes {
  const out: Attributes = {};
  for (const key in input) {
    if (!ALLOWED.has(key)) continue;
    const value = input[key as AttributeKey];
    if (typeof value === "string") out[key as AttributeKey] = value.slice(0, MAX_STRING);
    else if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean")
      out[key as AttributeKey] = value;
  }
  return out;
}
