/**
 * The audit sink every caller uses: tool pipeline, REST router, OAuth events, CI key events. Each record
 * is scrubbed, stored in its organization's audit store and logged as one structured line with
 * `stored: true`, or, when storing fails, logged in full with `stored: false`. It never throws: the
 * caller always gets its result.
 */
import type { Env } from "../env";
import { logError } from "../web/log";
import { logAuditRecord, type AuditRecord, type AuditSink } from "./record";
import { scrubAuditRecord } from "./scrub";
import type { AppendResult, AuditLog } from "./store";

/** The part of an organization's audit store that writing needs (the Durable Object stub). */
export interface AuditAppender {
  append(record: AuditRecord): Promise<AppendResult>;
}

export type AuditStoreLookup = (organizationId: string) => AuditAppender;

/** Audit stores in a Durable Object namespace, one per organization. */
export function auditStoresIn(namespace: Env["AUDIT_LOG"]): (organizationId: string) => DurableObjectStub<AuditLog> {
  return (organizationId) => namespace.get(namespace.idFromName(organizationId));
}

export class StoringAuditSink implements AuditSink {
  constructor(private readonly storeFor: AuditStoreLookup) {}

  async record(input: AuditRecord): Promise<void> {
    const record = scrubAuditRecord(input);
    try {
      if (!record.organizationId) throw new Error("record has no organization");
      const result = await this.storeFor(record.organizationId).append(record);
      if (!result.stored) throw new Error(`audit store refused the record: ${result.problem}`);
    } catch (error) {
      logAuditRecord(record, false);
      logError("audit record not stored", { correlationId: record.correlationId, error });
      return;
    }
    logAuditRecord(record, true);
  }
}

export function auditSinkFor(env: Env): AuditSink {
  return new StoringAuditSink(auditStoresIn(env.AUDIT_LOG));
}

/**
 * Records one event (OAuth grant or revoke, CI key created or revoked, ...). Never throws. Use kind
 * "oauth" and a short event name as target, e.g. `ci_key_created`; put no key, token or secret anywhere.
 */
export async function recordAudit(env: Env, record: AuditRecord): Promise<void> {
  await auditSinkFor(env).record(record);
}
