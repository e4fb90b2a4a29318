/**
 * What an organization's audit store (the AuditLog Durable Object, store.ts) offers over RPC, and the values it
 * takes and answers. Env types the AUDIT_LOG binding by this interface, so no caller imports the class.
 */
import type { AuditRecord } from "./record";

/** The most records one query answers (a larger `limit` is read as this). */
export const MAX_AUDIT_QUERY_LIMIT = 500;

/** Filters of one query, already validated; times in epoch milliseconds. */
export interface AuditQuery {
  from?: number;
  to?: number;
  userId?: string;
  clientId?: string;
  target?: string;
  kind?: AuditRecord["kind"];
  outcome?: AuditRecord["outcome"];
  correlationId?: string;
  limit: number;
  /** Keyset position: return records strictly older than this one. */
  after?: AuditPosition;
}

export interface AuditPosition {
  timeMs: number;
  seq: number;
}

export interface AuditPage {
  events: AuditRecord[];
  /** Position of the last event returned when more match; null on the last page. */
  next: AuditPosition | null;
  /** Each event's `seq`, in the page's order: where a trail split by day goes on (trail.ts). */
  seqs?: number[];
}

/** An organization's audit trail in numbers: its days of records and their bytes on disk, as last told. */
export interface AuditTrailSize {
  days: number;
  oldestDay: string | null;
  newestDay: string | null;
  bytes: number;
  /** Records from before the split are still being moved to their days' stores (they are read meanwhile). */
  moving: boolean;
}

/** The day stores of an organization that hold records, newest first (UTC days, `YYYY-MM-DD`). */
export interface AuditTrailIndex {
  days: string[];
}

/** What append answers: refusals are values, not exceptions, so they are not logged as uncaught errors. */
export type AppendResult = { stored: true } | { stored: false; problem: string };

/**
 * One outbox row as the audit store receives it (outbox.ts): the record and its delivery id (null for a record
 * sent once and never again).
 */
export interface AuditDelivery {
  deliveryId: string | null;
  record: AuditRecord;
}

/** The audit store's RPC methods. */
export interface AuditLogRpc extends Rpc.DurableObjectBranded {
  /**
   * Removes everything this object stores: its organization was deleted (src/directory/store.ts, after the grace
   * period and an export). The directory calls it on the object named by that organization's id, which removes its
   * day stores a bounded number per call (`done: false`: call again), then itself.
   */
  purgeOrganization(organizationId: string): Promise<{ done: boolean }>;
  /**
   * Stores a batch of records (outbox deliveries, or the sink's records with a null id), one answer each; a delivery id
   * already stored is not stored again. `day`: this object is that UTC day's store (trail.ts).
   */
  appendBatch(deliveries: AuditDelivery[], day?: string): Promise<AppendResult[]>;
  /** One page of this object's records of the organization, newest first. */
  query(organizationId: string, query: AuditQuery): Promise<AuditPage>;
  /** The organization's own store: lists a day's store before that store keeps its first record (or says why not). */
  registerDay(organizationId: string, day: string, firstRecordMs: number): Promise<AppendResult>;
  /** The organization's own store: takes off a day's store that retention emptied. */
  forgetDay(organizationId: string, day: string): Promise<void>;
  /** The organization's own store: its day stores, newest first. */
  trailIndex(organizationId: string): Promise<AuditTrailIndex>;
  /** The organization's own store: what a day's store tells of its size (bytes on disk). */
  dayReport(organizationId: string, day: string, bytes: number): Promise<void>;
  /** The organization's own store: the trail's days and bytes. */
  trailSize(organizationId: string): Promise<AuditTrailSize>;
}

// The Worker's binding of this object, typed by its RPC: declared here, beside the RPC, so src/env.ts imports
// nothing from the rooms above it.
declare module "../env" {
  interface Env {
    /** Audit trails: per organization, its own store and one store per UTC day of records (trail.ts). */
    AUDIT_LOG: DurableObjectNamespace<AuditLogRpc>;
  }
}
