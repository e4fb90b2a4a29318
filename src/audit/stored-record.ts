/**
 * The audit store's check of a record it is asked to store: plain checks of each field, written out rather than a
 * zod schema because it runs for every record of every call, and zod's parser runs without its compiled fast path
 * in Workers (no code generation). Pure: no I/O, no clock.
 */
import { AUDIT_KINDS, AUDIT_OUTCOMES, type AuditRecord } from "./record";

/** ISO 8601 date and time with a UTC designator or an offset, as Date.toISOString() and most clients write it. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

const KINDS: ReadonlySet<string> = new Set(AUDIT_KINDS);
const OUTCOMES: ReadonlySet<string> = new Set(AUDIT_OUTCOMES);

function text(value: unknown, min: number, max: number): string | undefined {
  if (typeof value !== "string") return "must be a string";
  if (value.length < min) return min === 1 ? "must not be empty" : `must have at least ${min} characters`;
  if (value.length > max) return `must have at most ${max} characters`;
  return undefined;
}

/** What is wrong with `input` as a stored record (`field: problem`), or undefined when it can be stored as it is. */
export function storedRecordProblem(input: unknown): string | undefined {
  if (!input || typeof input !== "object" || Array.isArray(input)) return "record: must be an object";
  const record = input as Record<keyof AuditRecord, unknown>;
  const checks: Array<[keyof AuditRecord, string | undefined]> = [
    ["correlationId", text(record.correlationId, 1, 100)],
    [
      "time",
      typeof record.time === "string" && ISO_DATE_TIME.test(record.time) && !Number.isNaN(Date.parse(record.time))
        ? undefined
        : "must be an ISO 8601 date and time with Z or an offset",
    ],
    ["organizationId", text(record.organizationId, 1, 100)],
    ["userId", text(record.userId, 0, 300)],
    ["clientId", text(record.clientId, 0, 2048)],
    [
      "kind",
      typeof record.kind === "string" && KINDS.has(record.kind)
        ? undefined
        : `must be one of ${AUDIT_KINDS.join(", ")}`,
    ],
    ["target", text(record.target, 1, 300)],
    ["argumentsDigest", text(record.argumentsDigest, 0, 80)],
    [
      "durationMs",
      Number.isInteger(record.durationMs) && (record.durationMs as number) >= 0
        ? undefined
        : "must be a whole number of milliseconds, 0 or more",
    ],
    [
      "outcome",
      typeof record.outcome === "string" && OUTCOMES.has(record.outcome)
        ? undefined
        : `must be one of ${AUDIT_OUTCOMES.join(", ")}`,
    ],
    ["reason", text(record.reason, 0, 600)],
  ];
  const failed = checks.find(([, problem]) => problem !== undefined);
  return failed ? `${failed[0]}: ${failed[1]}` : undefined;
}
