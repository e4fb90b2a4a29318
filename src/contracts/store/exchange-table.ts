/**
 * Recorded-traffic runs of one organization: each upload of exchanges (HAR or NDJSON) checked against a contract
 * version, with its verdict body in the blob store. The exchanges themselves are not kept (recordings carry
 * credentials and personal data); the digest of the upload is. Callers run the writes inside `transactionSync`.
 */
import { getBlob } from "./blob-table";
import { nextSequence, optStr, page, type VerdictInput } from "./ledger-table";
import type { ExchangeRunRecord, Page } from "./records";

type Row = Record<string, SqlStorageValue>;

const SELECT = `SELECT r.*, c.version AS contract_version FROM exchange_runs r JOIN contracts c ON c.id = r.contract_id`;

function toRun(row: Row): ExchangeRunRecord {
  return {
    id: Number(row.id),
    project: String(row.project),
    contractVersion: Number(row.contract_version),
    format: String(row.format) as ExchangeRunRecord["format"],
    exchangeCount: Number(row.exchange_count),
    uploadDigest: String(row.upload_digest),
    approved: Number(row.approved) === 1,
    totalViolations: Number(row.total_violations),
    errorCount: Number(row.error_count),
    verdictHash: String(row.verdict_hash),
    commit: optStr(row.commit_sha),
    branch: optStr(row.branch),
    runUrl: optStr(row.run_url),
    uploadedBy: String(row.uploaded_by),
    uploadedAt: String(row.uploaded_at),
  };
}

export interface ExchangeRunInput {
  project: string;
  contractVersion: number;
  format: ExchangeRunRecord["format"];
  exchangeCount: number;
  uploadDigest: string;
  commit: string | null;
  branch: string | null;
  runUrl: string | null;
  uploadedBy: string;
  verdict: VerdictInput;
}

/** Null when the project has no such contract version. */
export function insertExchangeRun(sql: SqlStorage, input: ExchangeRunInput): ExchangeRunRecord | null {
  const contract = sql
    .exec<{ id: number }>(
      "SELECT id FROM contracts WHERE project = ? AND version = ?",
      input.project,
      input.contractVersion,
    )
    .toArray()[0];
  if (!contract) return null;
  if (!getBlob(sql, input.verdict.verdictHash)) throw new Error("verdict body is not stored");
  sql.exec(
    `INSERT INTO exchange_runs (project, seq, contract_id, format, exchange_count, upload_digest, approved, total_violations, error_count, verdict_hash, commit_sha, branch, run_url, uploaded_by, uploaded_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    input.project,
    nextSequence(sql),
    contract.id,
    input.format,
    input.exchangeCount,
    input.uploadDigest,
    input.verdict.approved ? 1 : 0,
    input.verdict.totalViolations,
    input.verdict.errorCount,
    input.verdict.verdictHash,
    input.commit,
    input.branch,
    input.runUrl,
    input.uploadedBy,
    new Date().toISOString(),
  );
  const id = Number(sql.exec<{ id: number }>("SELECT last_insert_rowid() AS id").one().id);
  return getExchangeRun(sql, input.project, id);
}

export function getExchangeRun(sql: SqlStorage, project: string, id: number): ExchangeRunRecord | null {
  const row = sql.exec(`${SELECT} WHERE r.project = ? AND r.id = ?`, project, id).toArray()[0];
  return row ? toRun(row) : null;
}

export function getLatestExchangeRun(sql: SqlStorage, project: string): ExchangeRunRecord | null {
  const row = sql.exec(`${SELECT} WHERE r.project = ? ORDER BY r.id DESC LIMIT 1`, project).toArray()[0];
  return row ? toRun(row) : null;
}

export function listExchangeRuns(
  sql: SqlStorage,
  project: string,
  limit: number,
  before: number | null,
): Page<ExchangeRunRecord> {
  const rows = sql
    .exec(
      `${SELECT} WHERE r.project = ? AND r.id < ? ORDER BY r.id DESC LIMIT ?`,
      project,
      before ?? Number.MAX_SAFE_INTEGER,
      limit + 1,
    )
    .toArray()
    .map(toRun);
  return page(rows, limit, (run) => run.id);
}
