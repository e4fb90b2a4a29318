/**
 * The audit store, a SQLite-backed Durable Object of two roles (trail.ts routes to them):
 *  - a day's store (`<organization>/audit/<YYYY-MM-DD>`) holds the organization's records of that UTC day. It says
 *    so to the organization's own store before it stores its first record, and once retention has deleted its
 *    last record it takes itself off that list and deletes its storage;
 *  - the organization's own store (named by the organization's id) lists the day stores that hold records
 *    (`audit_shards`), and keeps the records written before the trail was split by day, which are read after the
 *    days' and expire like them.
 * Records older than the retention period (the organization's setting, else policies/audit.json) are deleted by an
 * alarm set for when the oldest record expires (at most once an hour). Each object refuses records and queries for
 * any organization other than the one it was first written for.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { getAuditPolicy, retentionMsFor } from "./policy";
import { resolveOrganization } from "../directory/client";
import type { AuditRecord } from "./record";
import { storedRecordProblem } from "./stored-record";
import {
  type AppendResult,
  type AuditDelivery,
  type AuditLogRpc,
  type AuditPage,
  type AuditPosition,
  type AuditQuery,
  type AuditTrailIndex,
  type AuditTrailSize,
  MAX_AUDIT_QUERY_LIMIT,
} from "./store-rpc";
import { AUDIT_DAY, dayOfTime, dayStoreName } from "./trail-days";

/** The filtered columns that have an index of their own (kind has a handful of values: the time index serves it). */
export const AUDIT_FILTER_COLUMNS = ["user_id", "client_id", "target", "outcome"] as const;

/** Cleanup never runs more often than this, however records are spread. */
export const MIN_CLEANUP_SPACING_MS = 60 * 60 * 1000;
/** Day stores a purge removes per call (each one RPC): the directory's alarm calls again until it is done. */
export const DAY_STORES_PER_PURGE = 50;
/** A day's store tells its organization's store its size at most this often while it is written (and at cleanup). */
export const DAY_SIZE_REPORT_MS = 10 * 60 * 1000;
/** Records from before the split moved to their days per batch (one RPC per day in it), and batches per alarm run. */
export const MOVE_BATCH = 500;
export const MOVE_BATCHES_PER_RUN = 20;

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
  delivery_id: string | null;
}

export class AuditLog extends DurableObject<Env> implements AuditLogRpc {
  private readonly sql: SqlStorage;
  private organization: string | undefined;
  /** The UTC day this object holds, when it is a day's store; undefined for an organization's own store. */
  private day: string | undefined;
  private alarmKnownSet = false;
  /** When this day's store last told its size (epoch ms; 0: not since it started). */
  private sizeToldAt = 0;

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
    // The organization's own store: its day stores that hold records (and when the first of each was timed).
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS audit_shards (day TEXT PRIMARY KEY, first_record_ms INTEGER NOT NULL, bytes INTEGER NOT NULL DEFAULT 0)`,
    );
    // Records from before the split on their way to their days (moveToDays): out of the trail's reads meanwhile.
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS audit_moving (seq INTEGER PRIMARY KEY, day TEXT NOT NULL, delivery_id TEXT NOT NULL, record TEXT NOT NULL)`,
    );
    // The size each day told (a column the list had not in its first form).
    const shardColumns = this.sql.exec<{ name: string }>(`PRAGMA table_info(audit_shards)`).toArray();
    if (!shardColumns.some((column) => column.name === "bytes"))
      this.sql.exec(`ALTER TABLE audit_shards ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0`);
    this.organization = this.meta("organization");
    this.day = this.meta("day");
    // An organization's own store with records from before the split moves them to their days, from its alarm.
    if (this.day === undefined && this.organization !== undefined && this.recordsLeftToMove())
      ctx.blockConcurrencyWhile(async () => {
        const alarm = await ctx.storage.getAlarm();
        if (alarm === null || alarm > Date.now()) await ctx.storage.setAlarm(Date.now());
      });
  }

  private meta(key: string): string | undefined {
    return this.sql.exec<{ value: string }>(`SELECT value FROM audit_meta WHERE key = ?`, key).toArray()[0]?.value;
  }

  /**
   * Removes what this object stores: its organization was deleted (src/directory/store.ts). The organization's own
   * store first removes its day stores, DAY_STORES_PER_PURGE per call, then itself.
   */
  async purgeOrganization(organizationId: string): Promise<{ done: boolean }> {
    if (this.day === undefined && this.organization === organizationId) {
      const days = this.sql
        .exec<{ day: string }>(`SELECT day FROM audit_shards ORDER BY day LIMIT ?`, DAY_STORES_PER_PURGE + 1)
        .toArray();
      for (const { day } of days.slice(0, DAY_STORES_PER_PURGE)) {
        await this.dayStore(organizationId, day).purgeOrganization(organizationId);
        this.sql.exec(`DELETE FROM audit_shards WHERE day = ?`, day);
      }
      if (days.length > DAY_STORES_PER_PURGE) return { done: false };
    }
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.organization = undefined;
    this.day = undefined;
    return { done: true };
  }

  /**
   * Stores a batch of records (one answer per delivery, in order). A delivery id already stored is answered as stored
   * and not stored again. `day`: the UTC day this object holds when it is a day's store (trail.ts names one per day);
   * a record of another day is refused. Before its first record a day's store is listed in its organization's store,
   * so that a query finds it; if that fails, nothing is stored and every delivery says why.
   */
  async appendBatch(deliveries: AuditDelivery[], day?: string): Promise<AppendResult[]> {
    const items = deliveries.map((delivery) => ({
      record: delivery.record,
      deliveryId: typeof delivery.deliveryId === "string" ? delivery.deliveryId.slice(0, 300) : null,
    }));
    if (day !== undefined) {
      // The first record that names an organization and a time lists the day (a malformed one is refused below).
      const named = items.find(({ record }) => storedRecordProblem(record) === undefined)?.record;
      const refused = await this.becomeDayStore(day, named);
      if (refused) return items.map(() => refused);
    }
    const results = this.insertAll(items);
    const first = deliveries.find((_, index) => results[index]?.stored);
    if (first) await this.ensureCleanupScheduled(Date.parse(first.record.time));
    if (first && Date.now() - this.sizeToldAt >= DAY_SIZE_REPORT_MS) this.tellSize();
    return results;
  }

  /**
   * A day's store tells its organization's store how large it is, for the trail's summary (trailSize). Not awaited:
   * the size is a summary, and the records' writers do not wait for it; a size not told is told by the next write.
   */
  private tellSize(): void {
    const { organization, day } = this;
    if (organization === undefined || day === undefined) return;
    this.sizeToldAt = Date.now();
    this.ownStore(organization)
      .dayReport(organization, day, this.ctx.storage.sql.databaseSize)
      .catch(() => {
        this.sizeToldAt = 0;
      });
  }

  /** Makes this object the store of `day`, listed in its organization's store; a refusal when it cannot be. */
  private async becomeDayStore(day: string, first: AuditRecord | undefined): Promise<AppendResult | null> {
    if (!AUDIT_DAY.test(day)) return { stored: false, problem: `not a day: ${JSON.stringify(day).slice(0, 40)}` };
    if (this.day === day) return null;
    const holdsOther = (table: string) => this.sql.exec(`SELECT 1 FROM ${table} LIMIT 1`).toArray().length > 0;
    if (this.day !== undefined || holdsOther("audit_events") || holdsOther("audit_shards"))
      return { stored: false, problem: "this audit store is not this day's" };
    const organizationId = first?.organizationId;
    const firstMs = first ? Date.parse(first.time) : Number.NaN;
    if (typeof organizationId !== "string" || !organizationId || !Number.isFinite(firstMs))
      return { stored: false, problem: "malformed record: no organization or time" };
    const listed = await this.ownStore(organizationId)
      .registerDay(organizationId, day, firstMs)
      .catch((error: unknown): AppendResult => ({ stored: false, problem: String(error) }));
    if (!listed.stored)
      return { stored: false, problem: `the organization's audit store did not list this day: ${listed.problem}` };
    // Another append may have made it meanwhile (the RPC above let other events in).
    if (this.day !== day) {
      this.sql.exec(`INSERT OR REPLACE INTO audit_meta (key, value) VALUES ('day', ?)`, day);
      this.day = day;
    }
    return null;
  }

  /**
   * Lists a day's store of this organization (its first record timed at `firstRecordMs`). A refusal is an answer,
   * not an exception: for another organization, or when this object is a day's store itself.
   */
  async registerDay(organizationId: string, day: string, firstRecordMs: number): Promise<AppendResult> {
    if (this.day !== undefined) return { stored: false, problem: "a day's store lists no days" };
    if (!AUDIT_DAY.test(day)) return { stored: false, problem: "not a day" };
    this.claim(organizationId);
    if (this.organization !== organizationId)
      return { stored: false, problem: "this audit store belongs to another organization" };
    this.sql.exec(
      `INSERT OR IGNORE INTO audit_shards (day, first_record_ms) VALUES (?, ?)`,
      day,
      Number.isFinite(firstRecordMs) ? firstRecordMs : Date.now(),
    );
    return { stored: true };
  }

  /** What a day's store told of its size. */
  async dayReport(organizationId: string, day: string, bytes: number): Promise<void> {
    if (this.organization !== organizationId || this.day !== undefined || !Number.isSafeInteger(bytes)) return;
    this.sql.exec(`UPDATE audit_shards SET bytes = ? WHERE day = ?`, Math.max(0, bytes), day);
  }

  /**
   * The trail's summary, from the organization's own store: how many days hold records, the oldest and newest, the
   * bytes on disk (each day as it last told, plus this store, which holds the records from before the split), and
   * whether some of those are still being moved to their days.
   */
  async trailSize(organizationId: string): Promise<AuditTrailSize> {
    if (this.organization !== organizationId || this.day !== undefined)
      return { days: 0, oldestDay: null, newestDay: null, bytes: 0, moving: false };
    const row = this.sql
      .exec<{ days: number; oldest: string | null; newest: string | null; bytes: number | null }>(
        `SELECT COUNT(*) AS days, MIN(day) AS oldest, MAX(day) AS newest, SUM(bytes) AS bytes FROM audit_shards`,
      )
      .one();
    return {
      days: row.days,
      oldestDay: row.oldest,
      newestDay: row.newest,
      bytes: (row.bytes ?? 0) + this.ctx.storage.sql.databaseSize,
      moving: this.recordsLeftToMove(),
    };
  }

  /** Takes a day's store off the list (it has no record left). */
  async forgetDay(organizationId: string, day: string): Promise<void> {
    if (this.organization !== organizationId || this.day !== undefined) return;
    this.sql.exec(`DELETE FROM audit_shards WHERE day = ?`, day);
  }

  /** The day stores of the organization that hold records, newest first (nothing for another organization). */
  async trailIndex(organizationId: string): Promise<AuditTrailIndex> {
    if (this.organization !== organizationId || this.day !== undefined) return { days: [] };
    const days = this.sql.exec<{ day: string }>(`SELECT day FROM audit_shards ORDER BY day DESC`).toArray();
    return { days: days.map((row) => row.day) };
  }

  /** Writes the organization this object belongs to, the first time one is named. */
  private claim(organizationId: string): void {
    if (this.organization !== undefined) return;
    this.sql.exec(`INSERT INTO audit_meta (key, value) VALUES ('organization', ?)`, organizationId);
    this.organization = organizationId;
  }

  private ownStore(organizationId: string): DurableObjectStub<AuditLogRpc> {
    return this.env.AUDIT_LOG.get(this.env.AUDIT_LOG.idFromName(organizationId));
  }

  private dayStore(organizationId: string, day: string): DurableObjectStub<AuditLogRpc> {
    return this.env.AUDIT_LOG.get(this.env.AUDIT_LOG.idFromName(dayStoreName(organizationId, day)));
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
      this.claim(record.organizationId);
      if (this.organization !== record.organizationId)
        return { stored: false, problem: "this audit store belongs to another organization" };
      const timeMs = Date.parse(record.time);
      if (this.day !== undefined && dayOfTime(timeMs) !== this.day)
        return { stored: false, problem: `a record of ${dayOfTime(timeMs)} sent to the store of ${this.day}` };
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
    const limit = Math.max(1, Math.min(MAX_AUDIT_QUERY_LIMIT, Math.floor(query.limit)));
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
      seqs: page.map((row) => row.seq),
    };
  }

  /**
   * Deletes records past the retention period, then schedules the next cleanup. A day's store left with no record
   * takes itself off its organization's list and deletes its storage; if the list cannot be reached it tries again
   * at the next cleanup, records gone either way.
   */
  override async alarm(): Promise<void> {
    this.alarmKnownSet = false;
    if (this.organization === undefined) return;
    const retention = await this.retentionMs(this.organization);
    this.sql.exec(`DELETE FROM audit_events WHERE time_ms < ?`, Date.now() - retention);
    if (this.day === undefined && this.recordsLeftToMove()) {
      await this.moveToDays(this.organization);
      if (this.recordsLeftToMove()) {
        await this.ctx.storage.setAlarm(Date.now());
        this.alarmKnownSet = true;
        return;
      }
    }
    const oldest = this.sql
      .exec<{ oldest: number | null }>(`SELECT MIN(time_ms) AS oldest FROM audit_events`)
      .one().oldest;
    if (oldest !== null) {
      if (this.day !== undefined) this.tellSize();
      return this.scheduleCleanup(oldest + retention);
    }
    if (this.day === undefined) return;
    try {
      await this.ownStore(this.organization).forgetDay(this.organization, this.day);
    } catch {
      return this.scheduleCleanup(Date.now());
    }
    await this.ctx.storage.deleteAll();
    this.organization = undefined;
    this.day = undefined;
  }

  /** Where moving records from before the split has got to: past this time and sequence (refused rows stay). */
  private movedThrough(): AuditPosition {
    const [timeMs, seq] = (this.meta("moved_through") ?? "-1:0").split(":").map(Number);
    return { timeMs: timeMs ?? -1, seq: seq ?? 0 };
  }

  /** Whether this organization's own store still holds records from before the split that it has not tried to move. */
  private recordsLeftToMove(): boolean {
    const { timeMs, seq } = this.movedThrough();
    if (this.sql.exec(`SELECT 1 FROM audit_moving LIMIT 1`).toArray().length > 0) return true;
    return (
      this.sql
        .exec(`SELECT 1 FROM audit_events WHERE time_ms > ? OR (time_ms = ? AND seq > ?) LIMIT 1`, timeMs, timeMs, seq)
        .toArray().length > 0
    );
  }

  /**
   * Moves up to MOVE_BATCHES_PER_RUN batches of the records from before the split, oldest first, to their days'
   * stores. A batch first leaves the trail's table for `audit_moving` (one transaction), then goes to its days under
   * its delivery id (or `moved:<seq>`, so a batch sent twice is stored once), and leaves `audit_moving` once a day's
   * store took it. A run that stops half-way sends what is still moving first the next time. So no record is read
   * twice; while a batch is on its way (one call per day in it) its records are not read at all. A record a day's store
   * refuses goes back to the trail's table, still read here.
   */
  private async moveToDays(organizationId: string): Promise<void> {
    for (let batch = 0; batch < MOVE_BATCHES_PER_RUN; batch++) {
      if (!this.stageNextBatch()) return;
      const moving = this.sql
        .exec<{ seq: number; day: string; delivery_id: string; record: string }>(
          `SELECT seq, day, delivery_id, record FROM audit_moving ORDER BY seq`,
        )
        .toArray();
      const byDay = new Map<string, typeof moving>();
      for (const row of moving) {
        const rows = byDay.get(row.day);
        if (rows) rows.push(row);
        else byDay.set(row.day, [row]);
      }
      for (const [day, rows] of byDay) {
        const answers = await this.dayStore(organizationId, day).appendBatch(
          rows.map((row) => ({ deliveryId: row.delivery_id, record: JSON.parse(row.record) as AuditRecord })),
          day,
        );
        rows.forEach((row, index) => {
          if (!answers[index]?.stored)
            this.insertAll([{ record: JSON.parse(row.record), deliveryId: row.delivery_id }]);
          this.sql.exec(`DELETE FROM audit_moving WHERE seq = ?`, row.seq);
        });
      }
    }
  }

  /** Takes the next batch to move out of the trail's table, unless one is still moving; false when none is left. */
  private stageNextBatch(): boolean {
    if (this.sql.exec(`SELECT 1 FROM audit_moving LIMIT 1`).toArray().length > 0) return true;
    const { timeMs, seq } = this.movedThrough();
    const rows = this.sql
      .exec<Row>(
        `SELECT * FROM audit_events WHERE time_ms > ? OR (time_ms = ? AND seq > ?) ORDER BY time_ms, seq LIMIT ?`,
        timeMs,
        timeMs,
        seq,
        MOVE_BATCH,
      )
      .toArray();
    if (rows.length === 0) return false;
    this.ctx.storage.transactionSync(() => {
      for (const row of rows) {
        this.sql.exec(
          `INSERT INTO audit_moving (seq, day, delivery_id, record) VALUES (?, ?, ?, ?)`,
          row.seq,
          dayOfTime(row.time_ms),
          row.delivery_id ?? `moved:${row.seq}`,
          JSON.stringify(toRecord(row)),
        );
        this.sql.exec(`DELETE FROM audit_events WHERE seq = ?`, row.seq);
      }
      const last = rows[rows.length - 1]!;
      this.sql.exec(
        `INSERT OR REPLACE INTO audit_meta (key, value) VALUES ('moved_through', ?)`,
        `${last.time_ms}:${last.seq}`,
      );
    });
    return true;
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
