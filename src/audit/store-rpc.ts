/**
 * What an organization's audit store (the AuditLog Durable Object, store.ts) offers over RPC, and the values it
 * takes and answers. Env types the AUDIT_LOG binding by this interface, so no caller imports the class.
 */
import type { AuditRecord } from "./record";

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
   * period and an export). Only the directory calls it, on the object named by that organization's id.
   */
  purgeOrganization(organizationId: string): Promise<void>;
  /** Stores one record, or refuses a malformed one or one for another organization. */
  append(input: AuditRecord): Promise<AppendResult>;
  /** Stores a batch of outbox deliveries (outbox.ts), one answer each; a delivery id already stored is not stored again. */
  appendBatch(deliveries: AuditDelivery[]): Promise<AppendResult[]>;
  /** One page of the organization's records, newest first. */
  query(organizationId: string, query: AuditQuery): Promise<AuditPage>;
}

// The Worker's binding of this object, typed by its RPC: declared here, beside the RPC, so src/env.ts imports
// nothing from the rooms above it.
declare module "../env" {
  interface Env {
    /** Audit trails, one per organization. */
    AUDIT_LOG: DurableObjectNamespace<AuditLogRpc>;
  }
}
