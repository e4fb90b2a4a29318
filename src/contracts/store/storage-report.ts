/**
 * What a store holds, as the storage report and the export read it: per project (snapshots, documents, contracts,
 * builds, runs), the last retention runs, and every table's rows a page at a time.
 */
import { projectNameFilter } from "./name-filter";
import { listSummaries } from "./project-homes";

/** Which projects a report covers: only those named, those after a name, at most `limit` (all when omitted). */
export interface ProjectPage {
  only?: readonly string[] | null;
  limit?: number | null;
  after?: string | null;
}
import type { StorageUsage, StorageUsed } from "./records";

/** What one project stores in this store. */
export function projectUsage(sql: SqlStorage, name: string): StorageUsage["projects"][number] {
  const count = (table: string) =>
    Number(sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE project = ?`, name).one().n);
  const snapshots = sql
    .exec<{ n: number; bytes: number | null; oldest: string | null }>(
      "SELECT COUNT(*) AS n, SUM(size) AS bytes, MIN(uploaded_at) AS oldest FROM snapshots WHERE project = ?",
      name,
    )
    .one();
  const contracts = sql
    .exec<{ n: number; bytes: number | null }>(
      "SELECT COUNT(*) AS n, SUM(size) AS bytes FROM contracts WHERE project = ?",
      name,
    )
    .one();
  return {
    name,
    snapshots: Number(snapshots.n),
    documentBytes: Number(snapshots.bytes ?? 0) + Number(contracts.bytes ?? 0),
    contracts: Number(contracts.n),
    builds: count("builds"),
    exchangeRuns: count("exchange_runs"),
    oldestSnapshotAt: snapshots.oldest,
  };
}

/**
 * The organization's storage report from its store: `used` (every store's bytes), each project (in name order) from
 * this store's rows when it was created before the split, else from the summary its own store last sent, and the
 * last retention runs of all its stores.
 */
export function storageUsage(sql: SqlStorage, used: StorageUsed, page: ProjectPage = {}): StorageUsage {
  const only = page.only ?? null;
  const limit = page.limit ?? null;
  const after = page.after ?? null;
  const { where, bindings } = projectNameFilter("name", only, after);
  const own = listSummaries(sql, only, limit, after).map((summary) => summary.storage);
  // The projects created before the split that still live here (a project in a store of its own has a summary).
  const legacyOnly = `${where ? `${where} AND` : "WHERE"} name NOT IN (SELECT name FROM project_homes)`;
  const legacy = sql
    .exec<{ name: string }>(`SELECT name FROM projects ${legacyOnly} ORDER BY name LIMIT ?`, ...bindings, limit ?? -1)
    .toArray()
    .map(({ name }) => projectUsage(sql, name));
  const merged = [...legacy, ...own].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const projects = limit === null ? merged : merged.slice(0, limit);
  const retentionRuns = sql
    .exec<{ ran_at: string; snapshots: number; builds: number; exchange_runs: number; content_bytes: number }>(
      "SELECT * FROM retention_runs ORDER BY ran_at DESC, id DESC LIMIT 10",
    )
    .toArray()
    .map((row) => ({
      ranAt: row.ran_at,
      snapshots: Number(row.snapshots),
      builds: Number(row.builds),
      exchangeRuns: Number(row.exchange_runs),
      contentBytes: Number(row.content_bytes),
    }));
  return { ...used, projects, retentionRuns };
}

/** A stored value as the export writes it: binary values as `{ base64 }`. */
export type ExportedValue = string | number | null | { base64: string };

function exportedValue(value: SqlStorageValue): ExportedValue {
  return value instanceof ArrayBuffer ? { base64: Buffer.from(value).toString("base64") } : value;
}

/** About how many bytes a row takes in the archive (its strings and binary values; the rest is small). */
function rowBytes(row: Record<string, SqlStorageValue>): number {
  let bytes = 16;
  for (const value of Object.values(row))
    bytes += value instanceof ArrayBuffer ? (value.byteLength * 4) / 3 : typeof value === "string" ? value.length : 8;
  return bytes;
}

/** The store's tables, by name: what the export archives. */
export function exportTableNames(sql: SqlStorage): string[] {
  return sql
    .exec<{ name: string }>(
      // Not SQLite's own tables, the platform's (_cf_), nor the local runtime's (__miniflare_do_name under wrangler dev).
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'
         AND substr(name, 1, 11) != '__miniflare' ORDER BY name`,
    )
    .toArray()
    .map((row) => row.name);
}

/** Documents held in the bucket, by hash: a page of the export. */
export interface ExportContent {
  /** Base64 of each document; null for one the bucket no longer has. */
  items: Array<{ hash: string; base64: string | null }>;
  /** The page's last hash: the `afterHash` of the next page. Null when the page is empty. */
  lastHash: string | null;
  /** Whether documents follow the page. */
  more: boolean;
}

/** Hashes read per page of the export's documents. */
export const CONTENT_HASHES_PER_PAGE = 200;

/** Rows of one table, by rowid: a page of the export. */
export interface ExportRows {
  rows: Array<Record<string, ExportedValue>>;
  /** The rowid of the page's last row: the `afterRowid` of the next page. Null when the page is empty. */
  lastRowid: number | null;
  /** Whether rows follow the page. */
  more: boolean;
}

const ROWID = "__export_rowid";

/**
 * The rows of `table` after `afterRowid` (from the first when null), in rowid order, until they take about
 * `maxBytes` in the archive (at least one row): the export reads a store a page at a time, so neither the store's
 * answer nor the Worker's memory holds more than a page whatever the store's size. A name exportTableNames does not
 * list has no rows.
 */
export function exportRows(sql: SqlStorage, table: string, afterRowid: number | null, maxBytes: number): ExportRows {
  // Only a name the store lists is read (it goes into the statement): any other is a table with no rows.
  if (!exportTableNames(sql).includes(table)) return { rows: [], lastRowid: null, more: false };
  const cursor = sql.exec<Record<string, SqlStorageValue>>(
    `SELECT rowid AS ${ROWID}, * FROM "${table.replace(/"/g, '""')}" WHERE ? IS NULL OR rowid > ? ORDER BY rowid`,
    afterRowid,
    afterRowid,
  );
  const rows: Array<Record<string, ExportedValue>> = [];
  let lastRowid: number | null = null;
  let bytes = 0;
  for (const row of cursor) {
    if (rows.length > 0 && bytes >= maxBytes) return { rows, lastRowid, more: true };
    const { [ROWID]: rowid, ...columns } = row;
    const exported = Object.fromEntries(
      Object.entries(columns).map(([column, value]) => [column, exportedValue(value)]),
    );
    rows.push(exported);
    lastRowid = Number(rowid);
    bytes += rowBytes(columns);
  }
  return { rows, lastRowid, more: false };
}

/** Up to `limit` hashes of the content this store holds in the bucket, after `afterHash` in hash order (export). */
export function bucketContentHashes(sql: SqlStorage, afterHash: string | null, limit: number): string[] {
  if (!sql.exec("SELECT name FROM sqlite_master WHERE name = 'blobs'").toArray().length) return [];
  return sql
    .exec<{ hash: string }>(
      "SELECT hash FROM blobs WHERE stored_in = 'r2' AND (? IS NULL OR hash > ?) ORDER BY hash LIMIT ?",
      afterHash,
      afterHash,
      limit,
    )
    .toArray()
    .map((row) => row.hash);
}
