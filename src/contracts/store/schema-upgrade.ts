/** Brings a ContractStore of any earlier layout to the one schema.ts describes, on every start of the object. */
import { countHomeTotalsOnce } from "./project-homes";
import { SCHEMA_STATEMENTS } from "./schema";

interface AddedColumn {
  table: string;
  column: string;
  definition: string;
  /** Fills the column for the rows already there, once, right after it is added. */
  backfill?: string;
}

/** Columns added since a table was first created. Added on start when missing. */
const ADDED_COLUMNS: readonly AddedColumn[] = [
  // R2 for documents (bucket.ts): every row of a store from before names content in blob_chunks.
  { table: "blobs", column: "stored_in", definition: "TEXT NOT NULL DEFAULT 'sql'" },
  // A snapshot's number in its project, stored rather than counted, so it stays when retention deletes older ones.
  {
    table: "snapshots",
    column: "number",
    definition: "INTEGER",
    backfill: `UPDATE snapshots SET number = numbered.n
               FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY project ORDER BY id) AS n FROM snapshots) AS numbered
               WHERE snapshots.id = numbered.id AND snapshots.number IS NULL`,
  },
  // Whose session a subscription is (subscriber-table.ts bounds them per user); rows from before name no one.
  { table: "subscribers", column: "user_id", definition: "TEXT" },
];

const isIndex = (statement: string) => /^\s*CREATE\s+INDEX/i.test(statement);

/**
 * Brings a store of any earlier layout to this one, on every start: tables that are missing are created, columns
 * that are missing are added (with their default, or filled for the rows already there), then missing indexes are
 * built from the rows (after the columns, which they may name). Nothing stored is rewritten otherwise.
 */
export function applySchema(sql: SqlStorage): void {
  for (const statement of SCHEMA_STATEMENTS.filter((statement) => !isIndex(statement))) sql.exec(statement);
  for (const { table, column, definition, backfill } of ADDED_COLUMNS) {
    const present = sql
      .exec<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
      .toArray()
      .some((row) => row.name === column);
    if (present) continue;
    sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
    if (backfill) sql.exec(backfill);
  }
  for (const statement of SCHEMA_STATEMENTS.filter(isIndex)) sql.exec(statement);
  // The running totals of what the projects in their own stores reported (project-homes.ts), each counted once.
  countHomeTotalsOnce(sql);
  // The running total of bucket bytes (blob-table.ts), counted once for a store that has none yet.
  if (sql.exec("SELECT 1 FROM counters WHERE name = 'bucket_bytes'").toArray().length === 0)
    sql.exec(
      "INSERT INTO counters (name, value) SELECT 'bucket_bytes', COALESCE(SUM(size), 0) FROM blobs WHERE stored_in = 'r2'",
    );
}
