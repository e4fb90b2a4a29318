/**
 * The audit outbox of a 2025-11-25 session: the session Durable Object writes each call's record into its own
 * SQLite storage before it answers (a local write, no round trip, and durable with the answer: the output gate
 * holds the answer until it is stored), and drains the outbox to the organization's audit store in batches after
 * the answer (an alarm of the session object, src/mcp/session/agent.ts). No record is lost:
 *  - a row leaves the outbox only after the audit store confirmed it, or after it was logged in full with
 *    `stored: false` when the store refused it or could not be reached (a stored row is logged only with
 *    AUDIT_LOG_LINES=all: log-lines.ts);
 *  - when the object is evicted mid-batch the rows are still in its storage and the alarm, which is durable and
 *    retried by the platform, drains them in the next instance;
 *  - each row carries a delivery id (the object's id and the row's id), and the store ignores a delivery it already
 *    holds, so a batch stored just before an eviction, and drained again after it, is stored once.
 */
import { logError } from "../lib/log";
import type { AuditLogLines } from "./log-lines";
import { logAuditRecord, type AuditRecord } from "./record";
import { scrubAuditRecord } from "./scrub";
import type { AppendResult, AuditDelivery } from "./store-rpc";

export type { AuditDelivery } from "./store-rpc";

/** The part of an organization's audit store that draining needs (the Durable Object stub). */
export interface AuditBatchAppender {
  appendBatch(deliveries: AuditDelivery[]): Promise<AppendResult[]>;
}

export type AuditBatchLookup = (organizationId: string) => AuditBatchAppender;

/** Rows sent per store call: one RPC per organization per batch. */
export const OUTBOX_BATCH = 100;

export interface DrainReport {
  stored: number;
  logged: number;
}

export class AuditOutbox {
  private ready = false;

  /**
   * @param sql the session object's SQLite storage
   * @param owner this object's id: with the row id it makes the delivery id
   * @param onQueued called after a record was added (the host schedules the drain)
   * @param lines which drained records are also logged (log-lines.ts)
   */
  constructor(
    private readonly sql: SqlStorage,
    private readonly owner: string,
    private readonly onQueued: () => Promise<void>,
    private readonly lines: AuditLogLines = "failures",
  ) {}

  private table(): void {
    if (this.ready) return;
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS arbiter_audit_outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, record TEXT NOT NULL)`,
    );
    this.ready = true;
  }

  /** Stores one (scrubbed) record in the outbox; resolves once the drain is scheduled. */
  async add(record: AuditRecord): Promise<void> {
    this.table();
    this.sql.exec(`INSERT INTO arbiter_audit_outbox (record) VALUES (?)`, JSON.stringify(scrubAuditRecord(record)));
    await this.onQueued();
  }

  /** Records still waiting (tests, diagnostics). */
  pending(): number {
    this.table();
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM arbiter_audit_outbox`).one().n;
  }

  /**
   * The last drain before the storage goes (the session ends): like drain(), and should reading or deleting rows
   * fail, every record still waiting is logged in full instead, so none leaves with the storage unrecorded.
   */
  async flush(storeFor: AuditBatchLookup): Promise<DrainReport> {
    try {
      return await this.drain(storeFor);
    } catch (error) {
      logError("audit outbox could not be drained before the session's storage is deleted; its records are logged", {
        error,
      });
      const rows = this.sql.exec<{ record: string }>(`SELECT record FROM arbiter_audit_outbox ORDER BY id`).toArray();
      for (const row of rows) logAuditRecord(JSON.parse(row.record) as AuditRecord, false);
      return { stored: 0, logged: rows.length };
    }
  }

  /**
   * Sends every record waiting when it starts to its store, batch by batch; never throws (what the store refuses is
   * logged). Records added meanwhile go with the drain their onQueued scheduled.
   */
  async drain(storeFor: AuditBatchLookup): Promise<DrainReport> {
    this.table();
    const report: DrainReport = { stored: 0, logged: 0 };
    for (;;) {
      const rows = this.sql
        .exec<{ id: number; record: string }>(
          `SELECT id, record FROM arbiter_audit_outbox ORDER BY id LIMIT ?`,
          OUTBOX_BATCH,
        )
        .toArray();
      if (rows.length === 0) return report;
      const drained = await deliverAuditBatch(
        storeFor,
        rows.map((row) => ({ deliveryId: `${this.owner}:${row.id}`, record: JSON.parse(row.record) as AuditRecord })),
        this.lines,
      );
      report.stored += drained.stored;
      report.logged += drained.logged;
      // Only now: a row leaves the outbox once it is stored or logged in full.
      this.sql.exec(`DELETE FROM arbiter_audit_outbox WHERE id <= ?`, rows[rows.length - 1]!.id);
      // A short batch was the whole outbox as of the read; a record added since then scheduled a drain of its own
      // (onQueued), so there is no need to read the table once more.
      if (rows.length < OUTBOX_BATCH) return report;
    }
  }
}

/**
 * Sends scrubbed records to their organizations' audit stores, one appendBatch per organization, and logs in full
 * (`stored: false`) each one a store refused or that could not be sent; with AUDIT_LOG_LINES=all a stored one is
 * logged too. Never throws.
 */
export async function deliverAuditBatch(
  storeFor: AuditBatchLookup,
  deliveries: readonly AuditDelivery[],
  lines: AuditLogLines,
): Promise<DrainReport> {
  const report: DrainReport = { stored: 0, logged: 0 };
  const byOrganization = new Map<string, AuditDelivery[]>();
  for (const delivery of deliveries) {
    const batch = byOrganization.get(delivery.record.organizationId) ?? [];
    batch.push(delivery);
    byOrganization.set(delivery.record.organizationId, batch);
  }
  for (const [organizationId, batch] of byOrganization) {
    const results = await sendTo(storeFor, organizationId, batch);
    batch.forEach((delivery, index) => {
      const result = results[index];
      if (result?.stored) {
        if (lines === "all") logAuditRecord(delivery.record, true);
        report.stored++;
      } else {
        logAuditRecord(delivery.record, false);
        logError("audit record not stored", {
          correlationId: delivery.record.correlationId,
          error: result?.problem ?? "no answer from the audit store",
        });
        report.logged++;
      }
    });
  }
  return report;
}

async function sendTo(
  storeFor: AuditBatchLookup,
  organizationId: string,
  deliveries: AuditDelivery[],
): Promise<AppendResult[]> {
  try {
    if (!organizationId) throw new Error("record has no organization");
    return await storeFor(organizationId).appendBatch(deliveries);
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    return deliveries.map(() => ({ stored: false, problem: `audit store unavailable: ${problem}` }));
  }
}
