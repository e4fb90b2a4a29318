/**
 * Moving a project created before the split from its organization's store into a store of its own
 * (docs/storage.md "Projects from before the split"). The organization's store reads the project's rows a page at a
 * time and the project's store writes them as they are (ids, numbers and times kept); content follows its records.
 * Only the tables below move; CI keys, default projects and subscribers are the organization's and stay.
 */

/** The tables a project's history is in, and how to find the project's rows in each (`?1` is the project's name). */
export const MOVED_TABLES: ReadonlyArray<{ table: string; where: string }> = [
  { table: "projects", where: "name = ?1" },
  { table: "contracts", where: "project = ?1" },
  { table: "snapshots", where: "project = ?1" },
  { table: "builds", where: "project = ?1" },
  { table: "verdicts", where: "project = ?1" },
  { table: "contract_changes", where: "contract_id IN (SELECT id FROM contracts WHERE project = ?1)" },
  { table: "exchange_runs", where: "project = ?1" },
  { table: "accepted_breaks", where: "project = ?1" },
  { table: "usage_counts", where: "project = ?1" },
  { table: "contract_forms", where: "content_hash IN (SELECT content_hash FROM contracts WHERE project = ?1)" },
  { table: "blobs", where: namedBy("hash") },
  { table: "blob_chunks", where: namedBy("hash") },
];

/**
 * Whether the content `column` names is named by the project's records (`?1`): its documents, forms and verdict
 * bodies. Written as one IN per source, since the store's SQLite allows few terms in a compound SELECT.
 */
function namedBy(column: string): string {
  return `(${column} IN (SELECT content_hash FROM contracts WHERE project = ?1)
    OR ${column} IN (SELECT content_hash FROM snapshots WHERE project = ?1)
    OR ${column} IN (SELECT verdict_hash FROM verdicts WHERE project = ?1)
    OR ${column} IN (SELECT verdict_hash FROM exchange_runs WHERE project = ?1)
    OR ${column} IN (SELECT cc.verdict_hash FROM contract_changes cc JOIN contracts c ON c.id = cc.contract_id WHERE c.project = ?1)
    OR ${column} IN (SELECT f.form_hash FROM contract_forms f JOIN contracts c ON c.content_hash = f.content_hash WHERE c.project = ?1))`;
}

export type MovedRow = Record<string, SqlStorageValue>;

/** Rows per page; pieces of content (up to 1 MiB each in a store from before the bucket) go a few at a time. */
const ROWS_PER_PAGE = 500;
const PIECES_PER_PAGE = 4;

/** One page of a table's rows of the project, after `afterRowid`, with the rowid to continue from. */
export function projectRowsPage(
  sql: SqlStorage,
  table: string,
  project: string,
  afterRowid: number,
): { rows: MovedRow[]; next: number | null } {
  const spec = MOVED_TABLES.find((each) => each.table === table);
  if (!spec) throw new RangeError(`${table} does not move`);
  const limit = table === "blob_chunks" ? PIECES_PER_PAGE : ROWS_PER_PAGE;
  const rows = sql
    .exec(
      `SELECT rowid AS moved_rowid, * FROM ${table} WHERE (${spec.where}) AND rowid > ?2 ORDER BY rowid LIMIT ?3`,
      project,
      afterRowid,
      limit,
    )
    .toArray();
  const last = rows.at(-1);
  return {
    rows: rows.map(({ moved_rowid: _rowid, ...row }) => row),
    next: rows.length === limit && last ? Number(last.moved_rowid) : null,
  };
}

/** How many rows of each table the project has (compared on both sides before the move is made final). */
export function projectRowCounts(sql: SqlStorage, project: string): Record<string, number> {
  return Object.fromEntries(
    MOVED_TABLES.map(({ table, where }) => [
      table,
      Number(sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, project).one().n),
    ]),
  );
}

/** Writes moved rows as they are (the project's store, inside its transaction). */
export function insertMovedRows(sql: SqlStorage, table: string, rows: readonly MovedRow[]): void {
  if (!MOVED_TABLES.some((each) => each.table === table)) throw new RangeError(`${table} does not move`);
  for (const row of rows) {
    const columns = Object.keys(row);
    if (!columns.every((column) => /^[a-z_]+$/.test(column))) throw new RangeError("unexpected column name");
    sql.exec(
      `INSERT OR REPLACE INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
      ...columns.map((column) => row[column] ?? null),
    );
  }
}

/** The content hashes the project's records name, whose bytes are in the bucket. */
export function projectBucketContent(sql: SqlStorage, project: string): Array<{ hash: string; size: number }> {
  return sql
    .exec<{ hash: string; size: number }>(
      `SELECT hash, size FROM blobs WHERE stored_in = 'r2' AND ${namedBy("hash")} ORDER BY hash`,
      project,
    )
    .toArray()
    .map((row) => ({ hash: row.hash, size: Number(row.size) }));
}

/**
 * Deletes the project's rows from the organization's store (inside its transaction), and answers the content they
 * named: the caller deletes what no remaining record names once reads that began before the move are done.
 */
export function deleteProjectRows(sql: SqlStorage, project: string): string[] {
  const named = sql
    .exec<{ hash: string }>(`SELECT hash FROM blobs WHERE ${namedBy("hash")}`, project)
    .toArray()
    .map((row) => row.hash);
  const hashes = sql
    .exec<{ content_hash: string }>("SELECT DISTINCT content_hash FROM contracts WHERE project = ?", project)
    .toArray()
    .map((row) => row.content_hash);
  // Children first: contract_changes finds its rows through the project's contracts.
  const records = MOVED_TABLES.filter((each) => !each.table.startsWith("blob") && each.table !== "contract_forms");
  for (const { table, where } of [...records].reverse()) sql.exec(`DELETE FROM ${table} WHERE ${where}`, project);
  // Forms go with the last contract of that document in this store.
  for (const hash of hashes)
    sql.exec(
      "DELETE FROM contract_forms WHERE content_hash = ? AND NOT EXISTS (SELECT 1 FROM contracts WHERE content_hash = ?)",
      hash,
      hash,
    );
  return named;
}

/** Empties a project's store before it receives a moved project, so a move that failed half-way starts over. */
export function emptyForMove(sql: SqlStorage): void {
  for (const { table } of MOVED_TABLES) sql.exec(`DELETE FROM ${table}`);
  sql.exec("DELETE FROM counters");
}

/**
 * Ends receiving a moved project in its store: null when the store holds `expected` rows of each table, then the
 * organization's event counter continues here and the bucket bytes are counted; else what is missing.
 */
export function finishReceiving(
  sql: SqlStorage,
  project: string,
  events: number,
  expected: Record<string, number>,
): string | null {
  const counts = projectRowCounts(sql, project);
  const short = Object.keys(expected).filter((table) => counts[table] !== expected[table]);
  if (short.length > 0) return `the project's store did not receive every row of ${short.join(", ")}`;
  sql.exec("INSERT OR REPLACE INTO counters (name, value) VALUES ('events', ?)", events);
  sql.exec(
    "INSERT OR REPLACE INTO counters (name, value) SELECT 'bucket_bytes', COALESCE(SUM(size), 0) FROM blobs WHERE stored_in = 'r2'",
  );
  return null;
}
