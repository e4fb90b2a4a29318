/**
 * Where each project's history lives. Since the split (docs/storage.md "One store per project"), a project created
 * by its first contract upload lives in a ContractStore of its own, named `<organization>/projects/<name>`; the
 * organization's store, named `<organization>`, keeps the organization's records (CI keys, default projects,
 * subscribers), the projects created before the split (their rows never moved: they keep working as they were), and
 * this directory of the others: one row per project with the summary its store sends after every write, which the
 * project list, the storage report and the quota read without calling every project's store.
 */
import { projectNameFilter } from "./name-filter";
import type { ProjectRecord, StorageUsage, StorageUsed } from "./records";

/** The separator no organization id or project name can contain (settings.ts, names.ts). */
const PROJECT_PART = "/projects/";

/** The name of a project's own store. */
export function projectStoreName(organizationId: string, project: string): string {
  return `${organizationId}${PROJECT_PART}${project}`;
}

/** Whom a store belongs to, read from its name: an organization's own store, or one project's. */
export function storeOwner(name: string): { organizationId: string; project: string | null } {
  const at = name.indexOf(PROJECT_PART);
  return at < 0
    ? { organizationId: name, project: null }
    : { organizationId: name.slice(0, at), project: name.slice(at + PROJECT_PART.length) };
}

/** Where a project's records are: the organization's store (created before the split) or the project's own. */
export type ProjectHome = "organization" | "own";

/** What a project's own store tells the organization's after each write. */
export interface ProjectSummary {
  project: ProjectRecord;
  storage: StorageUsage["projects"][number];
  used: StorageUsed;
}

/**
 * The bytes the projects in their own stores last reported, summed: running totals in `counters`, moved by each
 * summary's difference, so the quota check every upload makes reads two rows however many projects there are.
 */
const HOMES_DATABASE = "homes_database_bytes";
const HOMES_BUCKET = "homes_bucket_bytes";

/** What one project's row counts towards the totals (nothing when it has no row). */
function reportedUsed(sql: SqlStorage, name: string): StorageUsed {
  const row = sql
    .exec<{ database: number | null; bucket: number | null }>(
      `SELECT json_extract(summary, '$.used.databaseBytes') AS database,
              json_extract(summary, '$.used.bucketBytes') AS bucket FROM project_homes WHERE name = ?`,
      name,
    )
    .toArray()[0];
  return { databaseBytes: Number(row?.database ?? 0), bucketBytes: Number(row?.bucket ?? 0) };
}

function moveTotals(sql: SqlStorage, databaseBytes: number, bucketBytes: number): void {
  for (const [name, by] of [
    [HOMES_DATABASE, databaseBytes],
    [HOMES_BUCKET, bucketBytes],
  ] as const)
    if (by !== 0) sql.exec("UPDATE counters SET value = value + ? WHERE name = ?", by, name);
}

/**
 * Counts the totals from the rows, once, in a store that has none yet (every store at its first start since they
 * exist, an organization's store from before them included; applySchema runs it).
 */
export function countHomesUsedOnce(sql: SqlStorage): void {
  if (sql.exec("SELECT 1 FROM counters WHERE name = ?", HOMES_DATABASE).toArray().length > 0) return;
  const row = sql
    .exec<{ database: number | null; bucket: number | null }>(
      `SELECT SUM(json_extract(summary, '$.used.databaseBytes')) AS database,
              SUM(json_extract(summary, '$.used.bucketBytes')) AS bucket FROM project_homes`,
    )
    .one();
  sql.exec(
    "INSERT OR REPLACE INTO counters (name, value) VALUES (?, ?), (?, ?)",
    HOMES_DATABASE,
    Number(row.database ?? 0),
    HOMES_BUCKET,
    Number(row.bucket ?? 0),
  );
}

export function putSummary(sql: SqlStorage, summary: ProjectSummary, now: string): void {
  const before = reportedUsed(sql, summary.project.name);
  moveTotals(sql, summary.used.databaseBytes - before.databaseBytes, summary.used.bucketBytes - before.bucketBytes);
  sql.exec(
    `INSERT INTO project_homes (name, summary, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET summary = excluded.summary, updated_at = excluded.updated_at`,
    summary.project.name,
    JSON.stringify(summary),
    now,
  );
}

/**
 * The summaries of the projects that live in their own stores, in name order (only those in `only`, and only those
 * after `after`, when given).
 */
export function listSummaries(
  sql: SqlStorage,
  only: readonly string[] | null,
  limit: number | null,
  after: string | null = null,
): ProjectSummary[] {
  const { where, bindings } = projectNameFilter("name", only, after);
  return sql
    .exec<{ summary: string }>(
      `SELECT summary FROM project_homes ${where} ORDER BY name LIMIT ?`,
      ...bindings,
      limit ?? -1,
    )
    .toArray()
    .map((row) => JSON.parse(row.summary) as ProjectSummary);
}

/** How many projects live in their own stores, and how many of those have no active contract (from summaries). */
export function countSummaries(sql: SqlStorage): { total: number; withoutContract: number } {
  const row = sql
    .exec<{ total: number; without_contract: number | null }>(
      `SELECT COUNT(*) AS total,
              SUM(json_extract(summary, '$.project.activeContractVersion') IS NULL) AS without_contract
       FROM project_homes`,
    )
    .toArray()[0];
  return { total: row?.total ?? 0, withoutContract: row?.without_contract ?? 0 };
}

export function hasOwnHome(sql: SqlStorage, name: string): boolean {
  return sql.exec("SELECT 1 FROM project_homes WHERE name = ?", name).toArray().length > 0;
}

/** The bytes the projects in their own stores hold, as their summaries last reported them (the running totals). */
export function ownHomesUsed(sql: SqlStorage): StorageUsed {
  const total = (name: string) =>
    Number(sql.exec<{ value: number }>("SELECT value FROM counters WHERE name = ?", name).toArray()[0]?.value ?? 0);
  return { databaseBytes: total(HOMES_DATABASE), bucketBytes: total(HOMES_BUCKET) };
}

/** Forgets a project's own store (its purge is done: the organization's purge goes on with the others). */
export function forgetOwnHome(sql: SqlStorage, name: string): void {
  const before = reportedUsed(sql, name);
  moveTotals(sql, -before.databaseBytes, -before.bucketBytes);
  sql.exec("DELETE FROM project_homes WHERE name = ?", name);
}

export function ownHomeNames(sql: SqlStorage): string[] {
  return sql
    .exec<{ name: string }>("SELECT name FROM project_homes ORDER BY name")
    .toArray()
    .map((row) => row.name);
}
