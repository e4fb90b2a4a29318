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
 * What the projects in their own stores add up to, kept as running totals in `counters` and moved by each row's
 * difference, so that the quota check every upload makes, and the console's overview, read a few rows however many
 * projects there are: each total's counter name and what one row counts towards it (SQL over `summary`).
 */
const TOTALS = {
  homes_database_bytes: "COALESCE(json_extract(summary, '$.used.databaseBytes'), 0)",
  homes_bucket_bytes: "COALESCE(json_extract(summary, '$.used.bucketBytes'), 0)",
  homes_projects: "1",
  homes_without_contract: "json_extract(summary, '$.project.activeContractVersion') IS NULL",
} as const;
type Total = keyof typeof TOTALS;
const TOTAL_NAMES = Object.keys(TOTALS) as Total[];
const ROW_COUNTS = TOTAL_NAMES.map((name) => `${TOTALS[name]} AS ${name}`).join(", ");

/** What one project's row counts towards each total (nothing when it has no row). */
function rowCounts(sql: SqlStorage, name: string): Record<Total, number> {
  const row = sql.exec(`SELECT ${ROW_COUNTS} FROM project_homes WHERE name = ?`, name).toArray()[0];
  return Object.fromEntries(TOTAL_NAMES.map((total) => [total, Number(row?.[total] ?? 0)])) as Record<Total, number>;
}

function moveTotals(sql: SqlStorage, before: Record<Total, number>, after: Record<Total, number>): void {
  for (const name of TOTAL_NAMES) {
    const by = after[name] - before[name];
    if (by !== 0) sql.exec("UPDATE counters SET value = value + ? WHERE name = ?", by, name);
  }
}

function totalOf(sql: SqlStorage, name: Total): number {
  return Number(
    sql.exec<{ value: number }>("SELECT value FROM counters WHERE name = ?", name).toArray()[0]?.value ?? 0,
  );
}

/**
 * Counts each total that a store does not hold yet from the rows, once (every store at its first start since that
 * total exists, an organization's store from before it included; applySchema runs this on every start).
 */
export function countHomeTotalsOnce(sql: SqlStorage): void {
  for (const name of TOTAL_NAMES) {
    if (sql.exec("SELECT 1 FROM counters WHERE name = ?", name).toArray().length > 0) continue;
    sql.exec(`INSERT INTO counters (name, value) SELECT ?, COALESCE(SUM(${TOTALS[name]}), 0) FROM project_homes`, name);
  }
}

export function putSummary(sql: SqlStorage, summary: ProjectSummary, now: string): void {
  const name = summary.project.name;
  const before = rowCounts(sql, name);
  sql.exec(
    `INSERT INTO project_homes (name, summary, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET summary = excluded.summary, updated_at = excluded.updated_at`,
    name,
    JSON.stringify(summary),
    now,
  );
  moveTotals(sql, before, rowCounts(sql, name));
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

/** How many projects live in their own stores, and how many of those have no active contract (the running totals). */
export function countSummaries(sql: SqlStorage): { total: number; withoutContract: number } {
  return { total: totalOf(sql, "homes_projects"), withoutContract: totalOf(sql, "homes_without_contract") };
}

export function hasOwnHome(sql: SqlStorage, name: string): boolean {
  return sql.exec("SELECT 1 FROM project_homes WHERE name = ?", name).toArray().length > 0;
}

/** The bytes the projects in their own stores hold, as their summaries last reported them (the running totals). */
export function ownHomesUsed(sql: SqlStorage): StorageUsed {
  return { databaseBytes: totalOf(sql, "homes_database_bytes"), bucketBytes: totalOf(sql, "homes_bucket_bytes") };
}

/** Forgets a project's own store (its purge is done: the organization's purge goes on with the others). */
export function forgetOwnHome(sql: SqlStorage, name: string): void {
  const before = rowCounts(sql, name);
  sql.exec("DELETE FROM project_homes WHERE name = ?", name);
  moveTotals(sql, before, rowCounts(sql, name));
}

/** The names of the projects in their own stores after `after` (from the first when null), at most `limit`. */
export function ownHomeNames(sql: SqlStorage, after: string | null = null, limit: number | null = null): string[] {
  return sql
    .exec<{ name: string }>(
      "SELECT name FROM project_homes WHERE name > ? ORDER BY name LIMIT ?",
      after ?? "",
      limit ?? -1,
    )
    .toArray()
    .map((row) => row.name);
}

/** How many projects live in their own stores after `after` (read from the primary key, not the summaries). */
export function ownHomesAfter(sql: SqlStorage, after: string | null): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM project_homes WHERE name > ?", after ?? "").one().n;
}
