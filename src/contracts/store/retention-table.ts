/**
 * Retention of a project's history (docs/storage.md "Retention"): contract versions are kept for good; a snapshot
 * (with its verdict), a failed build or a traffic run expires when it is older than the policy's days AND is not
 * among the newest `keepPerBranch` of its branch AND is not the project's newest. Expired rows are deleted a batch
 * at a time by the store's alarm, then any content no record names any more: never content a kept record names
 * (a contract's document and forms, a kept snapshot's bytes shared with an expired one, a verdict body).
 */
import { addBucketBytes } from "./blob-table";

export interface RetentionPolicy {
  /** Days a snapshot, build or traffic run is kept at least. */
  snapshotDays: number;
  /** The newest this many of each branch (no branch counts as one) are kept whatever their age. */
  keepPerBranch: number;
}

/** The platform's default when neither the organization nor the project sets one. */
/** How often the retention alarm runs when it finished its work (expiry is counted in days). */
export const RETENTION_INTERVAL_MS = 6 * 60 * 60 * 1000;

export const DEFAULT_RETENTION: RetentionPolicy = { snapshotDays: 90, keepPerBranch: 10 };

/** An organization's retention settings (directory settings `retention`): its own, and per project. */
export interface RetentionSettings extends Partial<RetentionPolicy> {
  projects?: Record<string, Partial<RetentionPolicy>>;
}

/** The policy of one project: the project's own values over the organization's over the platform's default. */
export function policyFor(settings: RetentionSettings | undefined, project: string): RetentionPolicy {
  const own = settings?.projects?.[project];
  return {
    snapshotDays: own?.snapshotDays ?? settings?.snapshotDays ?? DEFAULT_RETENTION.snapshotDays,
    keepPerBranch: own?.keepPerBranch ?? settings?.keepPerBranch ?? DEFAULT_RETENTION.keepPerBranch,
  };
}

/** The tables retention reads, with the column holding each row's time. */
/**
 * What expires, and what is kept whatever its age: the snapshots an accepted break names (the one it was accepted
 * against, and the last one whose verdict it turned into "accepted"), which its listing links to as its evidence.
 */
const HISTORY = [
  {
    table: "snapshots",
    at: "uploaded_at",
    referred: `SELECT snapshot_at_creation FROM accepted_breaks WHERE project = ?1 AND snapshot_at_creation IS NOT NULL
               UNION SELECT last_matched_snapshot FROM accepted_breaks WHERE project = ?1 AND last_matched_snapshot IS NOT NULL`,
  },
  { table: "builds", at: "recorded_at", referred: null },
  { table: "exchange_runs", at: "uploaded_at", referred: null },
] as const;

type History = (typeof HISTORY)[number];

function expiredIds(
  sql: SqlStorage,
  history: History,
  project: string,
  policy: RetentionPolicy,
  now: number,
  limit: number,
): number[] {
  const cutoff = new Date(now - policy.snapshotDays * 86_400_000).toISOString();
  return sql
    .exec<{ id: number }>(
      `SELECT id FROM (
         SELECT id, ${history.at} AS at,
                ROW_NUMBER() OVER (PARTITION BY COALESCE(branch, char(0)) ORDER BY id DESC) AS rank_in_branch,
                ROW_NUMBER() OVER (ORDER BY id DESC) AS rank_in_project
         FROM ${history.table} WHERE project = ?1)
       WHERE at < ?2 AND rank_in_branch > ?3 AND rank_in_project > 1${history.referred ? ` AND id NOT IN (${history.referred})` : ""}
       ORDER BY id LIMIT ?4`,
      project,
      cutoff,
      policy.keepPerBranch,
      limit,
    )
    .toArray()
    .map((row) => Number(row.id));
}

/** What one retention run of the store deleted (ContractStore.runRetention). */
export interface RetentionRun {
  deleted: { snapshots: number; builds: number; exchangeRuns: number };
  /** Bytes of the content no record named any more, deleted with them. */
  contentBytes: number;
  /** Expired rows remain: the alarm runs again a second later. */
  more: boolean;
}

/** What one pass deleted, and the content hashes that may no longer be named by any record. */
export interface ExpiryPass {
  deleted: { snapshots: number; builds: number; exchangeRuns: number };
  candidates: string[];
  /** More expired rows remain in this project than the pass took. */
  more: boolean;
}

const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ");

/** Deletes at most `limit` expired rows of one project (call inside a transaction). */
export function expireProject(
  sql: SqlStorage,
  project: string,
  policy: RetentionPolicy,
  now: number,
  limit: number,
): ExpiryPass {
  const pass: ExpiryPass = { deleted: { snapshots: 0, builds: 0, exchangeRuns: 0 }, candidates: [], more: false };
  let left = limit;
  for (const history of HISTORY) {
    const ids = expiredIds(sql, history, project, policy, now, left + 1);
    if (ids.length > left) {
      pass.more = true;
      ids.length = left;
    }
    if (ids.length === 0) continue;
    left -= ids.length;
    const list = placeholders(ids.length);
    if (history.table === "snapshots") {
      for (const row of sql.exec<{ hash: string }>(
        `SELECT content_hash AS hash FROM snapshots WHERE id IN (${list})
         UNION SELECT verdict_hash FROM verdicts WHERE subject = 'snapshot' AND snapshot_id IN (${list})`,
        ...ids,
        ...ids,
      ))
        pass.candidates.push(row.hash);
      sql.exec(`DELETE FROM verdicts WHERE subject = 'snapshot' AND snapshot_id IN (${list})`, ...ids);
      sql.exec(`DELETE FROM snapshots WHERE id IN (${list})`, ...ids);
      pass.deleted.snapshots += ids.length;
    } else if (history.table === "exchange_runs") {
      for (const row of sql.exec<{ hash: string }>(
        `SELECT DISTINCT verdict_hash AS hash FROM exchange_runs WHERE id IN (${list})`,
        ...ids,
      ))
        pass.candidates.push(row.hash);
      sql.exec(`DELETE FROM exchange_runs WHERE id IN (${list})`, ...ids);
      pass.deleted.exchangeRuns += ids.length;
    } else {
      sql.exec(`DELETE FROM builds WHERE id IN (${list})`, ...ids);
      pass.deleted.builds += ids.length;
    }
    if (left === 0) {
      pass.more = true;
      break;
    }
  }
  return pass;
}

/** Whether any record still names this content (each look-up through an index). */
function named(sql: SqlStorage, hash: string): boolean {
  return (
    sql
      .exec(
        `SELECT 1 WHERE EXISTS (SELECT 1 FROM contracts WHERE content_hash = ?1)
            OR EXISTS (SELECT 1 FROM snapshots WHERE content_hash = ?1)
            OR EXISTS (SELECT 1 FROM verdicts WHERE verdict_hash = ?1)
            OR EXISTS (SELECT 1 FROM contract_changes WHERE verdict_hash = ?1)
            OR EXISTS (SELECT 1 FROM exchange_runs WHERE verdict_hash = ?1)
            OR EXISTS (SELECT 1 FROM contract_forms WHERE form_hash = ?1)`,
        hash,
      )
      .toArray().length > 0
  );
}

/**
 * Deletes the content no record names any more (call inside the same transaction as the deletions); answers the
 * hashes whose bytes are in the bucket, for the caller to delete there once the transaction committed.
 */
export function collectContent(sql: SqlStorage, candidates: readonly string[]): { inBucket: string[]; bytes: number } {
  const inBucket: string[] = [];
  let bytes = 0;
  for (const hash of new Set(candidates)) {
    if (named(sql, hash)) continue;
    const row = sql
      .exec<{ size: number; stored_in: string }>("SELECT size, stored_in FROM blobs WHERE hash = ?", hash)
      .toArray()[0];
    if (!row) continue;
    bytes += Number(row.size);
    if (row.stored_in === "r2") {
      inBucket.push(hash);
      addBucketBytes(sql, -Number(row.size));
    }
    sql.exec("DELETE FROM blob_chunks WHERE hash = ?", hash);
    sql.exec("DELETE FROM blobs WHERE hash = ?", hash);
  }
  return { inBucket, bytes };
}
