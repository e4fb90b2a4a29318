/**
 * The audit record: one per tool call, REST call and OAuth event that matters. Stored and queried per
 * organization by the governance layer; printed as one structured log line (logAuditRecord) when the store did
 * not take it, or for every record with AUDIT_LOG_LINES=all (log-lines.ts). It never holds a token,
 * a secret, a request body or a masked value: arguments appear only as a digest.
 */
import { sha256Hex } from "../lib/sha256";
export const AUDIT_OUTCOMES = [
  "ok",
  "invalid-input",
  "rejected-by-policy",
  "rate-limited",
  "upstream-error",
  "timeout",
  "error",
] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** Tool calls, REST calls (route), OAuth events, resource reads and subscription changes, prompt gets. */
export const AUDIT_KINDS = ["tool", "route", "oauth", "resource", "prompt"] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

export interface AuditRecord {
  correlationId: string;
  time: string;
  organizationId: string;
  userId: string;
  clientId: string;
  kind: AuditKind;
  /** Tool name, `METHOD /route/template`, or OAuth event name. */
  target: string;
  /** `sha256:<hex>` of the canonical JSON of the arguments, or "" when there were none. */
  argumentsDigest: string;
  durationMs: number;
  outcome: AuditOutcome;
  /** Short, safe reason: never a token, a secret or a payload. */
  reason: string;
}

export interface AuditSink {
  record(record: AuditRecord): Promise<void>;
}

/** Canonical JSON (sorted keys) so the same arguments always give the same digest. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

export async function digestArguments(args: unknown): Promise<string> {
  if (args === undefined || (typeof args === "object" && args !== null && Object.keys(args).length === 0)) return "";
  return `sha256:${await sha256Hex(canonicalJson(args))}`;
}

/** One call to audit: who, what, with which arguments (digested here, never stored), and how it ended. */
export interface AuditedCall {
  correlationId: string;
  caller: { organizationId: string; userId: string; clientId: string };
  kind: AuditKind;
  target: string;
  arguments: unknown;
  startedMs: number;
  outcome: AuditOutcome;
  reason: string;
}

/** Builds the record of a call: the one place that turns call facts into the audit record shape. */
export async function auditRecordOf(call: AuditedCall, nowMs = Date.now()): Promise<AuditRecord> {
  return {
    correlationId: call.correlationId,
    time: new Date(call.startedMs).toISOString(),
    organizationId: call.caller.organizationId,
    userId: call.caller.userId,
    clientId: call.caller.clientId,
    kind: call.kind,
    target: call.target,
    argumentsDigest: await digestArguments(call.arguments),
    durationMs: nowMs - call.startedMs,
    outcome: call.outcome,
    reason: call.reason,
  };
}

/** The structured log line of an audit record (see log-lines.ts for which records are printed). */
export function logAuditRecord(record: AuditRecord, stored: boolean | undefined = undefined): void {
  console.log(
    JSON.stringify({ level: "info", event: "audit", ...record, ...(stored === undefined ? {} : { stored }) }),
  );
}

/** Foundation sink: the structured log line only. */
export const logAuditSink: AuditSink = {
  async record(record) {
    logAuditRecord(record);
  },
};
