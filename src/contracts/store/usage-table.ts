/**
 * The usage index of each project (src/engine/usage.ts): counts per day, operation, status and field, never a value.
 * Fed by recorded-traffic uploads and the ingest route; read once per verdict for the operations its findings name.
 * Kept USAGE_KEPT_DAYS days (the retention run deletes older days).
 */
import type { UsageCount } from "../../engine/usage";

/** Days of counts kept: three times the default evidence window, the longest window a policy may set. */
export const USAGE_KEPT_DAYS = 90;
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

/**
 * The counts of `operations` from `sinceDay` on, summed over the days (one indexed read per operation range), and
 * whether the project has any count in the window at all (without which "never seen" would say nothing).
 */
export function usageSince(
  sql: SqlStorage,
  project: string,
  operations: readonly string[],
  sinceDay: string,
): { anyTraffic: boolean; counts: UsageCount[] } {
  const anyTraffic =
    sql.exec("SELECT 1 FROM usage_counts WHERE project = ? AND day >= ? LIMIT 1", project, sinceDay).toArray().length >
    0;
  if (!anyTraffic || operations.length === 0) return { anyTraffic, counts: [] };
  const counts: UsageCount[] = [];
  for (const operation of new Set(operations))
    for (const row of sql
      .exec<{ status: string; field: string; count: number }>(
        `SELECT status, field, SUM(count) AS count FROM usage_counts
         WHERE project = ? AND operation = ? AND day >= ? GROUP BY status, field`,
        project,
        operation,
        sinceDay,
      )
      .toArray())
      counts.push({ operation, status: String(row.status), field: String(row.field), count: Number(row.count) });
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
