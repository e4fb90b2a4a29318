/**
 * The usage index of each project (src/engine/verdict/usage.ts): counts per day, operation, status and field, never a value.
 * Fed by recorded-traffic uploads and the ingest route; read once per verdict for the operations its findings name.
 * Kept USAGE_KEPT_DAYS days (the retention run deletes older days).
 */
import type { UsageCount } from "../../engine";

/** Days of counts kept: three times the default evidence window, the longest window a policy may set. */
export const USAGE_KEPT_DAYS = 90;
/** Keys one verdict's evidence reads at most (two per listed finding; a verdict lists a few hundred). */
export const MAX_USAGE_KEYS = 2000;
/** Old rows deleted per retention run (the next run takes the rest). */
const DELETE_BATCH = 5000;

export const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** Adds counts of `day` to the project's index. */
export function addUsage(sql: SqlStorage, project: string, day: string, counts: readonly UsageCount[]): void {
  for (const count of counts)
    sql.exec(
      `INSERT INTO usage_counts (project, operation, day, status, field, count) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (project, operation, day, status, field) DO UPDATE SET count = count + excluded.count`,
      project,
      count.operation,
      day,
      count.status,
      count.field,
      count.count,
    );
}

/** A key of the index: what one finding's evidence reads. */
export interface UsageKey {
  operation: string;
  status: string;
  field: string;
}

/**
 * The counts of `keys` from `sinceDay` on, summed over the days (one short indexed range per key), and whether the
 * project has any count in the window at all (without which "never seen" would say nothing).
 */
export function usageSince(
  sql: SqlStorage,
  project: string,
  keys: readonly UsageKey[],
  sinceDay: string,
): { anyTraffic: boolean; counts: UsageCount[] } {
  const anyTraffic =
    sql.exec("SELECT 1 FROM usage_counts WHERE project = ? AND day >= ? LIMIT 1", project, sinceDay).toArray().length >
    0;
  if (!anyTraffic) return { anyTraffic, counts: [] };
  const counts: UsageCount[] = [];
  for (const key of keys) {
    const row = sql
      .exec<{ count: number | null }>(
        `SELECT SUM(count) AS count FROM usage_counts
         WHERE project = ? AND operation = ? AND status = ? AND field = ? AND day >= ?`,
        project,
        key.operation,
        key.status,
        key.field,
        sinceDay,
      )
      .one();
    counts.push({ ...key, count: Number(row.count ?? 0) });
  }
  return { anyTraffic, counts };
}

/** Deletes counts older than USAGE_KEPT_DAYS, at most DELETE_BATCH rows. */
export function deleteOldUsage(sql: SqlStorage, now: number): void {
  sql.exec(
    "DELETE FROM usage_counts WHERE rowid IN (SELECT rowid FROM usage_counts WHERE day < ? LIMIT ?)",
    dayOf(now - USAGE_KEPT_DAYS * 86_400_000),
    DELETE_BATCH,
  );
}
