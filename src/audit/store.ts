/**
 * The audit store: one SQLite-backed Durable Object per organization, holding that organization's audit
 * records. Records older than the retention period (policies/audit.json) are deleted by an alarm set for
 * when the oldest record expires (at most once an hour). The object refuses records and queries for any
 * organization other than the one it was first written for.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { getAuditPolicy, retentionMsFor } from "./policy";
import { resolveOrganization } from "../directory/client";
import type { AuditDelivery } from "./store-rpc";
import type { AuditRecord } from "./record";
import { storedRecordProblem } from "./stored-record";
import type { AppendResult, AuditLogRpc, AuditPage, AuditQuery } from "./store-rpc";

/** Cleanup never runs more often than this, however records are spread. */
/** The filtered columns that have an index of their own (kind has a handful of values: the time index serves it). */
export const AUDIT_FILTER_COLUMNS = ["user_id", "client_id", "target", "outcome"] as const;

export const MIN_CLEANUP_SPACING_MS = 60 * 60 * 1000;

interface Row extends Record<string, SqlStorageValue> {
  seq: number;
  correlation_id: string;
  time: string;
  time_ms: number;
  organization_id: string;
  user_id: string;
  client_id: string;
  kind: string;
  target: string;
  arguments_digest: string;
  duration_ms: number;
  outcome: string;
  reason: string;
}

export class AuditLog extends DurableObject<Env> implements AuditLogRpc {
  private readonly sql: SqlStorage;
  private organization: string | undefined;
  private alarmKnownSet = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS audit_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS audit_events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      correlation_id TEXT NOT NULL,
      time TEXT NOT NULL,
      time_ms INTEGER NOT NULL,
      organization_id TEXT NOT NULL,
      user_id TEXT NOT NULL,
      client_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      target TEXT NOT NULL,
      arguments_digest TEXT NOT NULL,
      duration_ms INTEGER NOT NULL,
      outcome TEXT NOT NULL,
      reason TEXT NOT NULL
    )`);
    this.sql.exec(`CREATE INDEX IF NOT EXISTS audit_events_by_time ON audit_events (time_ms, seq)`);
    this.sql.exec(`CREATE INDEX IF NOT EXISTS audit_events_by_correlation ON audit_events (correlation_id)`);
    // One index per filter the query offers (query.ts), each ending in the page order: a filter that matches few
    // records (a rare client, outcome=rate-limited) reads only those, newest first, instead of the whole trail.
    // Created here, so a store made before them gets them when it next starts (SQLite builds them from its rows).
    for (const column of AUDIT_FILTER_COLUMNS) {
      this.sql.exec(`CREATE INDEX IF NOT EXISTS audit_events_by_${column} ON audit_events (${column}, time_ms, seq)`);
    }
    // Outbox deliveries (outbox.ts) carry an id, so one drained twice (an eviction mid-batch) is stored once.
    const columns = this.sql.exec<{ name: string }>(`PRAGMA table_info(audit_events)`).toArray();
    if (!columns.some((column) => column.name === "delivery_id"))
      this.sql.exec(`ALTER TABLE audit_events ADD COLUMN delivery_id TEXT`);
    this.sql.exec(`CREATE UNIQUE INDEX IF NOT EXISTS audit_events_by_delivery ON audit_events (delivery_id)`);
    const owner = this.sql
      .exec<{ value: string }>(`SELECT value FROM audit_meta WHERE key = 'organization'`)
      .toArray()[0];
    this.organization = owner?.value;
  }

  async purgeOrganization(_organizationId: string): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  /** Stores one record, or refuses a malformed one or one for another organization (the sink logs it). */
  async append(input: AuditRecord): Promise<AppendResult> {
    const [result] = this.insertAll([{ record: input, deliveryId: null }]);
    if (result!.stored) await this.ensureCleanupScheduled(Date.parse(input.time));
    return result!;
  }

  /**
   * Stores a batch of outbox deliveries (one answer per delivery, in order). A delivery id already stored is
   * answered as stored and not stored again.
   */
  async appendBatch(deliveries: AuditDelivery[]): Promise<AppendResult[]> {
    const results = this.insertAll(
      deliveries.map((delivery) => ({
        record: delivery.record,
        deliveryId: typeof delivery.deliveryId === "string" ? delivery.deliveryId.slice(0, 300) : null,
      })),
    );
    const first = deliveries.find((_, index) => results[index]?.stored);
    if (first) await this.ensureCleanupScheduled(Date.parse(first.record.time));
    return results;
  }

  /**
   * Checks each record, then stores every acceptable one with a bound INSERT per row (all in the call's implicit
   * transaction). One `json_each` statement per batch was tried before: its SQLite time per record was about twice
   * a bound row's in a CPU profile of the stateless lane (docs/benchmarks.md, 2026-12-04 late morning).
   */
  private insertAll(items: ReadonlyArray<{ record: AuditRecord; deliveryId: string | null }>): AppendResult[] {
    const rows: SqlStorageValue[][] = [];
    const results = items.map(({ record, deliveryId }): AppendResult => {
      const problem = storedRecordProblem(record);
      if (problem) return { stored: false, problem: `malformed record: ${problem}` };
      if (this.organization === undefined) {
        this.sql.exec(`INSERT INTO audit_meta (key, value) VALUES ('organization', ?)`, record.organizationId);
        this.organization = record.organizationId;
      } else if (this.organization !== record.organizationId) {
        return { stored: false, problem: "this audit store belongs to another organization" };
      }
      const timeMs = Date.parse(record.time);
      rows.push([
        record.correlationId,
        new Date(timeMs).toISOString(),
        timeMs,
        record.organizationId,
        record.userId,
        record.clientId,
        record.kind,
        record.target,
        record.argumentsDigest,
        record.durationMs,
        record.outcome,
        record.reason,
        deliveryId,
      ]);
      return { stored: true };
    });
    for (const row of rows) {
      this.sql.exec(
        `INSERT OR IGNORE INTO audit_events (correlation_id, time, time_ms, organization_id, user_id, client_id, kind, target, arguments_digest, duration_ms, outcome, reason, delivery_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ...row,
      );
    }
    return results;
  }

  /** One page of this organization's records, newest first. Another organization gets nothing. */
  async query(organizationId: string, query: AuditQuery): Promise<AuditPage> {
    if (this.organization !== organizationId) return { events: [], next: null };
    const where: string[] = [];
    const bindings: SqlStorageValue[] = [];
    const add = (clause: string, ...values: SqlStorageValue[]) => {
      where.push(clause);
      bindings.push(...values);
    };
    if (query.from !== undefined) add("time_ms >= ?", query.from);
    if (query.to !== undefined) add("time_ms < ?", query.to);
    if (query.userId !== undefined) add("user_id = ?", query.userId);
    if (query.clientId !== undefined) add("client_id = ?", query.clientId);
    if (query.target !== undefined) add("target = ?", query.target);
    if (query.kind !== undefined) add("kind = ?", query.kind);
    if (query.outcome !== undefined) add("outcome = ?", query.outcome);
    if (query.correlationId !== undefined) add("correlation_id = ?", query.correlationId);
    if (query.after)
      add("(time_ms < ? OR (time_ms = ? AND seq < ?))", query.after.timeMs, query.after.timeMs, query.after.seq);
    const limit = Math.max(1, Math.min(500, Math.floor(query.limit)));
    const rows = this.sql
      .exec<Row>(
        `SELECT * FROM audit_events ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY time_ms DESC, seq DESC LIMIT ?`,
        ...bindings,
        limit + 1,
      )
      .toArray();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      events: page.map(toRecord),
      next: rows.length > limit && last ? { timeMs: last.time_ms, seq: last.seq } : null,
    };
  }

  /** Deletes records past the retention period, then schedules the next cleanup. */
  override async alarm(): Promise<void> {
    this.alarmKnownSet = false;
    if (this.organization === undefined) return;
    const retention = await this.retentionMs(this.organization);
    this.sql.exec(`DELETE FROM audit_events WHERE time_ms < ?`, Date.now() - retention);
    const oldest = this.sql
      .exec<{ oldest: number | null }>(`SELECT MIN(time_ms) AS oldest FROM audit_events`)
      .one().oldest;
    if (oldest !== null) await this.scheduleCleanup(oldest + retention);
  }

  /**
   * How long records are kept: the organization's own setting in the directory (within the operator's cap), else
   * policies/audit.json. A directory that cannot be reached leaves the file's retention in force.
   */
  private async retentionMs(organizationId: string): Promise<number> {
    const days = await resolveOrganization(this.env, organizationId)
      .then((resolved) => resolved?.record.settings.auditRetentionDays)
      .catch(() => undefined);
    return days ? days * 24 * 60 * 60 * 1000 : retentionMsFor(getAuditPolicy(), organizationId);
  }

  private async ensureCleanupScheduled(recordTimeMs: number): Promise<void> {
    if (this.alarmKnownSet) return;
    if ((await this.ctx.storage.getAlarm()) === null) {
      await this.scheduleCleanup(recordTimeMs + (await this.retentionMs(this.organization ?? "")));
    }
    this.alarmKnownSet = true;
  }

  private async scheduleCleanup(expiresAt: number): Promise<void> {
    await this.ctx.storage.setAlarm(Math.max(expiresAt, Date.now() + MIN_CLEANUP_SPACING_MS));
    this.alarmKnownSet = true;
  }
}

function toRecord(row: Row): AuditRecord {
  return {
    correlationId: row.correlation_id,
    time: row.time,
    organizationId: row.organization_id,
    userId: row.user_id,
    clientId: row.client_id,
    kind: row.kind as AuditRecord["kind"],
    target: row.target,
    argumentsDigest: row.arguments_digest,
    durationMs: row.duration_ms,
    outcome: row.outcome as AuditRecord["outcome"],
    reason: row.reason,
  };
}
