/**
 * An organization's audit trail as one list, over the stores it is kept in (store.ts): one per UTC day of records
 * (`<organization>/audit/<YYYY-MM-DD>`), so the trail is bounded by retention, not by one object's 10 GB, and the
 * organization's own store, which lists those days and keeps the records written before the split.
 *
 * Writing: each record goes to its day's store (records of several days in one batch are sent to each day's store
 * at once, and answered in their order). Reading: newest first, the days the query's time range reaches from the
 * newest, a few at a time in parallel (DAYS_PER_ROUND), then the organization's own store, until the page is full
 * and one more record says that more follow. A position names the store it is in (`day`; none: the organization's
 * own store, which is also what a cursor from before the split continues in).
 */
import type { Env } from "../env";
import { tracedStub } from "../telemetry/stub";
import type { AuditRecord } from "./record";
import {
  type AppendResult,
  type AuditDelivery,
  type AuditLogRpc,
  type AuditPage,
  type AuditPosition,
  type AuditQuery,
  type AuditTrailSize,
  MAX_AUDIT_QUERY_LIMIT,
} from "./store-rpc";
import { AUDIT_DAY, dayOfTime, dayStoreName } from "./trail-days";

/**
 * Day stores read at once while a page is gathered, round after round: the first page of a busy organization is
 * in its newest days, and a filter that matches little reaches every day in a few rounds.
 */
export const DAYS_PER_ROUND = [2, 8, 32] as const;
const daysInRound = (round: number) => DAYS_PER_ROUND[Math.min(round, DAYS_PER_ROUND.length - 1)]!;

/** Where a trail's page ends: a record's time and sequence, in its day's store (no day: the organization's own). */
export interface TrailPosition extends AuditPosition {
  day?: string;
}

export interface TrailQuery extends Omit<AuditQuery, "after"> {
  after?: TrailPosition;
}

export interface TrailPage {
  events: AuditRecord[];
  next: TrailPosition | null;
}

/** One organization's audit trail: what the sink, the session outbox and the readers use. */
export interface AuditTrail {
  appendBatch(deliveries: AuditDelivery[]): Promise<AppendResult[]>;
  query(organizationId: string, query: TrailQuery): Promise<TrailPage>;
  /** Its days and bytes, from the organization's own store. */
  size(organizationId: string): Promise<AuditTrailSize>;
}

/**
 * An organization's own audit store (its list of days, and its records from before the split): the object a test
 * or a migration looks into; everything else goes through auditTrailIn.
 */
export function ownAuditStore(namespace: Env["AUDIT_LOG"], organizationId: string): DurableObjectStub<AuditLogRpc> {
  return namespace.get(namespace.idFromName(organizationId));
}

/** An organization's store of one UTC day. */
export function dayAuditStore(
  namespace: Env["AUDIT_LOG"],
  organizationId: string,
  day: string,
): DurableObjectStub<AuditLogRpc> {
  return namespace.get(namespace.idFromName(dayStoreName(organizationId, day)));
}

/** The audit trails in a Durable Object namespace, by organization. */
export function auditTrailIn(namespace: Env["AUDIT_LOG"]): (organizationId: string) => AuditTrail {
  const store = (name: string) => tracedStub(namespace.get(namespace.idFromName(name)), "AuditLog");
  return (organizationId) => ({
    appendBatch: (deliveries) => appendByDay(store, organizationId, deliveries),
    query: (callerOrganization, query) => queryTrail(store, callerOrganization, query),
    size: (callerOrganization) => store(organizationId).trailSize(callerOrganization),
  });
}

type StoreNamed = (name: string) => DurableObjectStub<AuditLogRpc>;

/** The day store a record goes to; null (the organization's own store, which refuses it) for a time that is none. */
function dayOf(record: AuditRecord): string | null {
  const timeMs = typeof record?.time === "string" ? Date.parse(record.time) : Number.NaN;
  if (!Number.isFinite(timeMs)) return null;
  const day = dayOfTime(timeMs);
  return AUDIT_DAY.test(day) ? day : null;
}

async function appendByDay(
  store: StoreNamed,
  organizationId: string,
  deliveries: AuditDelivery[],
): Promise<AppendResult[]> {
  const byDay = new Map<string | null, number[]>();
  deliveries.forEach((delivery, index) => {
    const day = dayOf(delivery.record);
    const indexes = byDay.get(day);
    if (indexes) indexes.push(index);
    else byDay.set(day, [index]);
  });
  const results: AppendResult[] = new Array(deliveries.length);
  await Promise.all(
    [...byDay].map(async ([day, indexes]) => {
      const batch = indexes.map((index) => deliveries[index]!);
      const answers =
        day === null
          ? await store(organizationId).appendBatch(batch)
          : await store(dayStoreName(organizationId, day)).appendBatch(batch, day);
      indexes.forEach((index, k) => {
        results[index] = answers[k] ?? { stored: false, problem: "no answer from the audit store" };
      });
    }),
  );
  return results;
}

/** The stores a query reads, newest first: the days its range reaches (from its position on), then the own store. */
function storesToRead(days: readonly string[], query: TrailQuery): Array<string | undefined> {
  const after = query.after;
  if (after && after.day === undefined) return [undefined];
  const first = query.from === undefined ? null : dayOfTime(query.from);
  const last = query.to === undefined ? null : dayOfTime(query.to - 1);
  const reached = days.filter(
    (day) => (first === null || day >= first) && (last === null || day <= last) && (!after?.day || day <= after.day),
  );
  return [...reached, undefined];
}

async function queryTrail(store: StoreNamed, organizationId: string, asked: TrailQuery): Promise<TrailPage> {
  // As each store reads it, so that a store's page is never cut short of what this page still wants.
  const query = { ...asked, limit: Math.max(1, Math.min(MAX_AUDIT_QUERY_LIMIT, Math.floor(asked.limit))) };
  const own = store(organizationId);
  const sources = storesToRead((await own.trailIndex(organizationId)).days, query);
  const read = (day: string | undefined, limit: number): Promise<AuditPage> => {
    const after =
      query.after && query.after.day === day ? { timeMs: query.after.timeMs, seq: query.after.seq } : undefined;
    const target = day === undefined ? own : store(dayStoreName(organizationId, day));
    return target.query(organizationId, { ...query, limit, after });
  };
  const events: AuditRecord[] = [];
  let end: TrailPosition | null = null;
  for (let start = 0, rounds = 0; start < sources.length; start += daysInRound(rounds++)) {
    const round = sources.slice(start, start + daysInRound(rounds));
    // Once the page is full, one record more is all that is asked: it says that more follow.
    const wanted = events.length < query.limit ? query.limit - events.length : 1;
    const pages = await Promise.all(round.map((day) => read(day, wanted)));
    for (const [index, page] of pages.entries()) {
      const day = round[index];
      if (events.length === query.limit) {
        if (page.events.length > 0) return { events, next: end };
        continue;
      }
      const taken = page.events.slice(0, query.limit - events.length);
      events.push(...taken);
      if (events.length < query.limit) continue;
      const lastIndex = taken.length - 1;
      end = {
        timeMs: Date.parse(taken[lastIndex]!.time),
        seq: page.seqs?.[lastIndex] ?? 0,
        ...(day === undefined ? {} : { day }),
      };
      if (taken.length < page.events.length || page.next) return { events, next: end };
    }
  }
  return { events, next: null };
}
