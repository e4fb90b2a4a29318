/**
 * One retention run of a store: expired rows of each of its projects deleted in batches (retention-table.ts says
 * what expires), with the content no record names any more, and the list of the last runs that deleted something.
 */
import { deleteOldUsage } from "./usage-table";
import { collectContent, expireProject, policyFor, type RetentionRun, type RetentionSettings } from "./retention-table";

/** Rows one retention run deletes at most; a run that leaves more runs again a second later. */
export const RETENTION_BATCH = 500;

/**
 * Deletes up to RETENTION_BATCH expired rows over the store's projects and the content no record names any more (call
 * it inside a transaction); answers the run, the bucket content to delete after the commit and how many rows went.
 */
export function expireStore(
  sql: SqlStorage,
  retention: RetentionSettings | undefined,
  now: number,
): { run: RetentionRun; inBucket: string[]; deleted: number } {
  const run: RetentionRun = { deleted: { snapshots: 0, builds: 0, exchangeRuns: 0 }, contentBytes: 0, more: false };
  const candidates: string[] = [];
  let left = RETENTION_BATCH;
  for (const { name } of sql.exec<{ name: string }>("SELECT name FROM projects ORDER BY name").toArray()) {
    const pass = expireProject(sql, name, policyFor(retention, name), now, left);
    addRun(run, { deleted: pass.deleted, contentBytes: 0, more: pass.more });
    candidates.push(...pass.candidates);
    left -= pass.deleted.snapshots + pass.deleted.builds + pass.deleted.exchangeRuns;
    if (pass.more || left <= 0) {
      run.more = true;
      break;
    }
  }
  deleteOldUsage(sql, now);
  const collected = collectContent(sql, candidates);
  run.contentBytes = collected.bytes;
  const deleted = run.deleted.snapshots + run.deleted.builds + run.deleted.exchangeRuns;
  if (deleted > 0) recordRetentionRun(sql, run, new Date(now).toISOString());
  return { run, inBucket: collected.inBucket, deleted };
}

/** Adds another store's run (or a project's pass) to `total`. */
export function addRun(total: RetentionRun, each: RetentionRun): void {
  total.deleted.snapshots += each.deleted.snapshots;
  total.deleted.builds += each.deleted.builds;
  total.deleted.exchangeRuns += each.deleted.exchangeRuns;
  total.contentBytes += each.contentBytes;
  total.more ||= each.more;
}

/** Lists a run that deleted something (the last 50 are kept). */
export function recordRetentionRun(sql: SqlStorage, run: RetentionRun, ranAt: string): void {
  sql.exec(
    "INSERT INTO retention_runs (ran_at, snapshots, builds, exchange_runs, content_bytes) VALUES (?, ?, ?, ?, ?)",
    ranAt,
    run.deleted.snapshots,
    run.deleted.builds,
    run.deleted.exchangeRuns,
    run.contentBytes,
  );
  sql.exec("DELETE FROM retention_runs WHERE id <= (SELECT MAX(id) - 50 FROM retention_runs)");
}
