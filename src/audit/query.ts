/**
 * Reading the audit trail, shared by the `audit_events_list` tool and GET /api/v1/audit/events: the
 * filters (one zod schema per field), opaque cursors bound to the query they continue, and the rule that
 * the organization always comes from the caller's token.
 */
import { base64url } from "jose";
import { z } from "zod";
import type { Env } from "../env";
import { resolveOrganization } from "../directory/client";
import { sha256Hex } from "../lib/sha256";
import { getAuditPolicy, retentionMsFor } from "./policy";
import { AUDIT_KINDS, AUDIT_OUTCOMES, canonicalJson, type AuditOutcome } from "./record";
import type { AuditTrailSize } from "./store-rpc";
import { auditTrailIn, type TrailPage, type TrailPosition, type TrailQuery } from "./trail";
import { AUDIT_DAY } from "./trail-days";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export const auditFilterFields = {
  from: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("Earliest event time to include (inclusive), ISO 8601 with a zone, e.g. 2026-01-31T00:00:00Z"),
  to: z.iso.datetime({ offset: true }).optional().describe("Latest event time (exclusive), ISO 8601 with a zone"),
  userId: z.string().min(1).max(300).optional().describe("Only events of this user (the id whoami shows as userId)"),
  clientId: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .describe("Only events of this OAuth client or CI key (`ci-key:<id>`)"),
  target: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .describe(
      'Only events for this tool name (e.g. "whoami"), REST route (e.g. "GET /api/v1/audit/events") or OAuth event ("grant", "revoke", "ci_key_created", "ci_key_revoked")',
    ),
  kind: z
    .enum(AUDIT_KINDS)
    .optional()
    .describe("Only tool calls, REST calls (route), OAuth events, or refused resource and prompt requests"),
  outcome: z.enum(AUDIT_OUTCOMES).optional().describe("Only events with this outcome"),
  correlationId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe("The one event with this correlation id (error messages quote it)"),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .default(DEFAULT_PAGE_SIZE)
    .describe(`Events per page, 1-${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`),
  cursor: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe("nextCursor from the previous page, with the same filters; omit for the newest events"),
  organizationId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(
      "Your own organization id, if you want to state it. The organization always comes from your token; another one is refused",
    ),
};

export const auditQueryInput = z.object(auditFilterFields).strict();
export type AuditQueryInput = z.input<typeof auditQueryInput>;
type ParsedInput = z.output<typeof auditQueryInput>;

/** A query that cannot run: bad input, or a request for another organization's trail. */
export class AuditQueryError extends Error {
  override readonly name = "AuditQueryError";
  constructor(
    readonly outcome: Extract<AuditOutcome, "invalid-input" | "rejected-by-policy">,
    message: string,
  ) {
    super(message);
  }
}

/** Cursors are base64url JSON (jose's, the one base64url of the codebase): unchanged from before, so issued cursors stay valid. */
const toBase64Url = (text: string): string => base64url.encode(text);
const fromBase64Url = (value: string): string => new TextDecoder().decode(base64url.decode(value));

/** Identifies the filters a cursor was issued for, so a cursor cannot silently continue another query. */
async function fingerprint(input: ParsedInput): Promise<string> {
  const { cursor: _cursor, limit: _limit, organizationId: _org, ...filters } = input;
  return (await sha256Hex(canonicalJson(filters))).slice(0, 16);
}

/** `d`: the day store the position is in; a cursor without one (issued before the split) continues in the own store. */
export async function encodeCursor(position: TrailPosition, input: ParsedInput): Promise<string> {
  const day = position.day === undefined ? {} : { d: position.day };
  return toBase64Url(
    JSON.stringify({ v: 1, t: position.timeMs, s: position.seq, ...day, q: await fingerprint(input) }),
  );
}

export async function decodeCursor(cursor: string, input: ParsedInput): Promise<TrailPosition> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64Url(cursor));
  } catch {
    parsed = undefined;
  }
  const value = parsed as { v?: unknown; t?: unknown; s?: unknown; d?: unknown; q?: unknown } | undefined;
  if (
    value?.v !== 1 ||
    !Number.isSafeInteger(value.t) ||
    !Number.isSafeInteger(value.s) ||
    (value.d !== undefined && (typeof value.d !== "string" || !AUDIT_DAY.test(value.d))) ||
    typeof value.q !== "string"
  ) {
    throw new AuditQueryError(
      "invalid-input",
      "cursor: not a cursor this server issued. Pass nextCursor exactly as returned, or omit cursor to start from the newest events.",
    );
  }
  if (value.q !== (await fingerprint(input))) {
    throw new AuditQueryError(
      "invalid-input",
      "cursor: it continues a query with different filters. Repeat the same filters with this cursor, or omit cursor to start over.",
    );
  }
  const day = typeof value.d === "string" ? { day: value.d } : {};
  return { timeMs: value.t as number, seq: value.s as number, ...day };
}

export interface AuditEventsPage {
  organizationId: string;
  events: TrailPage["events"];
  nextCursor: string | null;
}

/** The validated store query for `input`; throws AuditQueryError on bad input or another organization. */
export async function toStoreQuery(callerOrganization: string, input: ParsedInput): Promise<TrailQuery> {
  if (input.organizationId !== undefined && input.organizationId !== callerOrganization) {
    throw new AuditQueryError(
      "rejected-by-policy",
      `organizationId: you can only read the audit trail of your own organization (${callerOrganization}); the organization comes from your token.`,
    );
  }
  const from = input.from === undefined ? undefined : Date.parse(input.from);
  const to = input.to === undefined ? undefined : Date.parse(input.to);
  if (from !== undefined && to !== undefined && from >= to) {
    throw new AuditQueryError("invalid-input", "from/to: `from` must be earlier than `to`.");
  }
  return {
    from,
    to,
    userId: input.userId,
    clientId: input.clientId,
    target: input.target,
    kind: input.kind,
    outcome: input.outcome,
    correlationId: input.correlationId,
    limit: input.limit,
    after: input.cursor === undefined ? undefined : await decodeCursor(input.cursor, input),
  };
}

/** One page of the caller's organization's audit trail, newest first. */
export async function listAuditEvents(
  env: Env,
  callerOrganization: string,
  input: ParsedInput,
): Promise<AuditEventsPage> {
  const query = await toStoreQuery(callerOrganization, input);
  const page = await auditTrailIn(env.AUDIT_LOG)(callerOrganization).query(callerOrganization, query);
  return {
    organizationId: callerOrganization,
    events: page.events,
    nextCursor: page.next ? await encodeCursor(page.next, input) : null,
  };
}

/**
 * The newest `limit` tool-call records of an organization since `fromMs`, for summaries that count them (the
 * console's overview chart). Reads go through this module; only the core's adapters write through the sink.
 */
export function recentToolRecords(env: Env, organizationId: string, fromMs: number, limit: number): Promise<TrailPage> {
  return auditTrailIn(env.AUDIT_LOG)(organizationId).query(organizationId, { kind: "tool", from: fromMs, limit });
}

/** The caller's organization's audit trail in numbers, and how long it keeps records. */
export interface AuditTrailSummary extends AuditTrailSize {
  retentionDays: number;
}

/**
 * How many days of records the organization's trail holds, the oldest and newest, its bytes on disk (each day's store
 * as it last told, at most DAY_SIZE_REPORT_MS ago, plus the records from before the split), and its retention: the
 * organization's setting, else policies/audit.json.
 */
export async function auditTrailSummary(env: Env, organizationId: string): Promise<AuditTrailSummary> {
  const [size, resolved] = await Promise.all([
    auditTrailIn(env.AUDIT_LOG)(organizationId).size(organizationId),
    resolveOrganization(env, organizationId),
  ]);
  const retentionDays =
    resolved?.record.settings.auditRetentionDays ??
    Math.round(retentionMsFor(getAuditPolicy(), organizationId) / (24 * 60 * 60 * 1000));
  return { ...size, retentionDays };
}
