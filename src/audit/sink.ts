/**
 * The audit sink every caller uses: tool pipeline, REST router, OAuth events, CI key events. Each record
 * is scrubbed and stored in its organization's audit trail (trail.ts), or, when storing fails, logged in full with
 * `stored: false`; with AUDIT_LOG_LINES=all a stored record is also logged, with `stored: true` (log-lines.ts). It never
 * throws, and record() resolves only once the record is stored or logged: a caller that answers after it (the governed
 * core does) answers with its record already safe. Records written at about the same time to one organization travel
 * in one RPC (write-groups.ts), each caller still waiting for its own. The 2025-11-25 session lane writes into its
 * own outbox instead (outbox.ts, wired in src/mcp/deps.ts).
 */
import type { Env } from "../env";
import { logError } from "../lib/log";
import { auditLogLinesOf, type AuditLogLines } from "./log-lines";
import { logAuditRecord, type AuditRecord, type AuditSink } from "./record";
import { scrubAuditRecord } from "./scrub";
import { auditTrailIn } from "./trail";
import { isolateWriteGroups, type AuditBatchAppender, type AuditWriteGroups } from "./write-groups";

export type AuditStoreLookup = (organizationId: string) => AuditBatchAppender;

export class StoringAuditSink implements AuditSink {
  constructor(
    private readonly storeFor: AuditStoreLookup,
    private readonly lines: AuditLogLines = "failures",
    private readonly groups: AuditWriteGroups = isolateWriteGroups,
  ) {}

  /** Resolves once the record is stored, or logged in full as not stored. */
  record(input: AuditRecord): Promise<void> {
    return this.store(input);
  }

  private async store(input: AuditRecord): Promise<void> {
    const record = scrubAuditRecord(input);
    try {
      if (!record.organizationId) throw new Error("record has no organization");
      const result = await this.groups.append(this.storeFor(record.organizationId), record);
      if (!result.stored) throw new Error(`audit store refused the record: ${result.problem}`);
    } catch (error) {
      logAuditRecord(record, false);
      logError("audit record not stored", { correlationId: record.correlationId, error });
      return;
    }
    if (this.lines === "all") logAuditRecord(record, true);
  }
}

/** The stored audit trail: each record() resolves once its record is stored or logged in full. */
export function auditSinkFor(env: Env): AuditSink {
  return new StoringAuditSink(auditTrailIn(env.AUDIT_LOG), auditLogLinesOf(env));
}

/**
 * Records one event (OAuth grant or revoke, CI key created or revoked, ...). Never throws. Use kind
 * "oauth" and a short event name as target, e.g. `ci_key_created`; put no key, token or secret anywhere.
 */
export async function recordAudit(env: Env, record: AuditRecord): Promise<void> {
  await auditSinkFor(env).record(record);
}
