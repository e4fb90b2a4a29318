/**
 * Projects, contract versions, snapshots, failed builds and verdicts of one organization, as SQL over the
 * Durable Object's SQLite. Callers run the writing functions inside `transactionSync` so a record, its
 * verdict and the active-contract pointer change together or not at all.
 */
import { projectNameFilter } from "./name-filter";
import { getBlob } from "./blob-table";
import type {
  BuildRecord,
  ContractChangeSummary,
  ContractRecord,
  Page,
  ProjectRecord,
  ProjectStatus,
  SnapshotRecord,
  VerdictRecord,
} from "./records";
import type { DocumentFacts, DocumentFormat } from "../../engine";

type Row = Record<string, SqlStorageValue>;
type Cell = SqlStorageValue | undefined;

const str = (value: Cell): string => String(value);
export const optStr = (value: Cell): string | null => (value === null || value === undefined ? null : String(value));
const num = (value: Cell): number => Number(value);
const optNum = (value: Cell): number | null => (value === null || value === undefined ? null : Number(value));

export function nextSequence(sql: SqlStorage): number {
  sql.exec(
    "INSERT INTO counters (name, value) VALUES ('events', 1) ON CONFLICT (name) DO UPDATE SET value = value + 1",
  );
  return num(sql.exec<{ value: number }>("SELECT value FROM counters WHERE name = 'events'").one().value);
}

function facts(row: Row): DocumentFacts {
  return {
    contentHash: str(row.content_hash),
    size: num(row.size),
    format: str(row.format) as DocumentFormat,
    openapiVersion: str(row.openapi_version),
    operationCount: num(row.operation_count),
  };
}

// ---- projects -------------------------------------------------------------------------------------------

const PROJECT_SELECT = `
  SELECT p.name, p.created_at, p.created_by,
         (SELECT version FROM contracts WHERE id = p.active_contract_id) AS active_version,
         (SELECT COUNT(*) FROM contracts WHERE project = p.name) AS contract_count,
         (SELECT COUNT(*) FROM snapshots WHERE project = p.name) AS snapshot_count,
         (SELECT MAX(id) FROM snapshots WHERE project = p.name) AS latest_snapshot_id
  FROM projects p`;

function toProject(row: Row): ProjectRecord {
  return {
    name: str(row.name),
    createdAt: str(row.created_at),
    createdBy: str(row.created_by),
    activeContractVersion: optNum(row.active_version),
    contractCount: num(row.contract_count),
    snapshotCount: num(row.snapshot_count),
    latestSnapshotId: optNum(row.latest_snapshot_id),
  };
}

export function getProject(sql: SqlStorage, name: string): ProjectRecord | null {
  const row = sql.exec(`${PROJECT_SELECT} WHERE p.name = ?`, name).toArray()[0];
  return row ? toProject(row) : null;
}

/**
 * The projects in name order, only those named in `only` when given, only those after `after` when given, at most
 * `limit`: filtered and cut in SQL.
 */
export function listProjects(
  sql: SqlStorage,
  only: readonly string[] | null,
  limit: number | null = null,
  after: string | null = null,
): ProjectRecord[] {
  const { where, bindings } = projectNameFilter("p.name", only, after);
  return sql
    .exec(`${PROJECT_SELECT} ${where} ORDER BY p.name LIMIT ?`, ...bindings, limit ?? -1)
    .toArray()
    .map(toProject);
}

/**
 * How many projects this store's own rows hold (those not listed in `project_homes`, which counts the rest) and how
 * many of them have no active contract: counted in SQL, without reading the projects.
 */
export function countProjects(sql: SqlStorage): { total: number; withoutContract: number } {
  const row = sql
    .exec<{ total: number; without_contract: number | null }>(
      `SELECT COUNT(*) AS total, SUM(active_contract_id IS NULL) AS without_contract FROM projects
       WHERE name NOT IN (SELECT name FROM project_homes)`,
    )
    .toArray()[0];
  return { total: row?.total ?? 0, withoutContract: row?.without_contract ?? 0 };
}

// ---- verdicts -------------------------------------------------------------------------------------------

const VERDICT_SELECT = `
  SELECT v.*, c.version AS contract_version FROM verdicts v JOIN contracts c ON c.id = v.contract_id`;

function toVerdict(row: Row): VerdictRecord {
  return {
    id: num(row.id),
    project: str(row.project),
    subject: str(row.subject) as VerdictRecord["subject"],
    snapshotId: optNum(row.snapshot_id),
    contractVersion: num(row.contract_version),
    approved: num(row.approved) === 1,
    totalViolations: num(row.total_violations),
    errorCount: num(row.error_count),
    verdictHash: str(row.verdict_hash),
    createdAt: str(row.created_at),
  };
}

export interface VerdictInput {
  approved: boolean;
  totalViolations: number;
  errorCount: number;
  verdictHash: string;
}

function insertVerdict(
  sql: SqlStorage,
  project: string,
  subject: VerdictRecord["subject"],
  contractId: number,
  snapshotId: number | null,
  verdict: VerdictInput,
  now: string,
): number {
  if (!getBlob(sql, verdict.verdictHash)) throw new Error("verdict body is not stored");
  sql.exec(
    `INSERT INTO verdicts (project, subject, snapshot_id, contract_id, approved, total_violations, error_count, verdict_hash, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    project,
    subject,
    snapshotId,
    contractId,
    verdict.approved ? 1 : 0,
    verdict.totalViolations,
    verdict.errorCount,
    verdict.verdictHash,
    now,
  );
  return num(sql.exec<{ id: number }>("SELECT last_insert_rowid() AS id").one().id);
}

export function getVerdict(sql: SqlStorage, project: string, id: number): VerdictRecord | null {
  const row = sql.exec(`${VERDICT_SELECT} WHERE v.project = ? AND v.id = ?`, project, id).toArray()[0];
  return row ? toVerdict(row) : null;
}

export function listVerdicts(
  sql: SqlStorage,
  project: string,
  limit: number,
  before: number | null,
): Page<VerdictRecord> {
  const rows = sql
    .exec(
      `${VERDICT_SELECT} WHERE v.project = ? AND v.id < ? ORDER BY v.id DESC LIMIT ?`,
      project,
      before ?? Number.MAX_SAFE_INTEGER,
      limit + 1,
    )
    .toArray()
    .map(toVerdict);
  return page(rows, limit, (v) => v.id);
}

/** The first `limit` of `rows` (one more was fetched to tell whether another page follows) and the cursor. */
export function page<T>(rows: T[], limit: number, idOf: (item: T) => number): Page<T> {
  const items = rows.slice(0, limit);
  return { items, nextBefore: rows.length > limit && items.length > 0 ? idOf(items[items.length - 1]!) : null };
}

// ---- contracts ------------------------------------------------------------------------------------------

const CONTRACT_SELECT = `
  SELECT c.*, (p.active_contract_id = c.id) AS is_active,
         (SELECT id FROM verdicts WHERE subject = 'contract' AND contract_id = c.id) AS verdict_id,
         pc.version AS change_compared_version, ch.approved AS change_approved, ch.error_count AS change_errors,
         ch.total_violations AS change_total, ch.verdict_hash AS change_verdict_hash
  FROM contracts c JOIN projects p ON p.name = c.project
  LEFT JOIN contract_changes ch ON ch.contract_id = c.id
  LEFT JOIN contracts pc ON pc.id = ch.compared_contract_id`;

function toChange(row: Row): ContractChangeSummary | null {
  if (row.change_compared_version === null || row.change_compared_version === undefined) return null;
  return {
    comparedWithVersion: num(row.change_compared_version),
    approved: num(row.change_approved) === 1,
    breakingChanges: num(row.change_errors),
    totalViolations: num(row.change_total),
  };
}

function toContract(row: Row): ContractRecord {
  return {
    project: str(row.project),
    version: num(row.version),
    label: optStr(row.label),
    active: num(row.is_active) === 1,
    ...facts(row),
    uploadedBy: str(row.uploaded_by),
    uploadedAt: str(row.uploaded_at),
    verdictId: optNum(row.verdict_id),
    changes: toChange(row),
  };
}

/** The stored breaking-changes verdict of a contract version: its hash in the blob store, or null. */
export function getContractChangeHash(sql: SqlStorage, project: string, version: number): string | null {
  const row = sql.exec(`${CONTRACT_SELECT} WHERE c.project = ? AND c.version = ?`, project, version).toArray()[0];
  return row ? optStr(row.change_verdict_hash) : null;
}

export function getContract(sql: SqlStorage, project: string, version: number): ContractRecord | null {
  const row = sql.exec(`${CONTRACT_SELECT} WHERE c.project = ? AND c.version = ?`, project, version).toArray()[0];
  return row ? toContract(row) : null;
}

export function getActiveContract(sql: SqlStorage, project: string): ContractRecord | null {
  const row = sql.exec(`${CONTRACT_SELECT} WHERE c.project = ? AND c.id = p.active_contract_id`, project).toArray()[0];
  return row ? toContract(row) : null;
}

export function listContracts(
  sql: SqlStorage,
  project: string,
  limit: number,
  before: number | null,
): Page<ContractRecord> {
  const rows = sql
    .exec(
      `${CONTRACT_SELECT} WHERE c.project = ? AND c.version < ? ORDER BY c.version DESC LIMIT ?`,
      project,
      before ?? Number.MAX_SAFE_INTEGER,
      limit + 1,
    )
    .toArray()
    .map(toContract);
  return page(rows, limit, (c) => c.version);
}

export interface ContractInput {
  project: string;
  label: string | null;
  document: DocumentFacts;
  uploadedBy: string;
  verdict: VerdictInput;
  /** The comparison with the version active at upload, when there was one. */
  change?: { comparedWithVersion: number; verdict: VerdictInput };
  /** False when policy keeps a breaking version inactive; the project's first version is always activated. */
  activate: boolean;
}

/**
 * Creates the project on its first contract, appends the version, records its verdict (and its comparison with
 * the version active until now), and makes it active unless `activate` is false.
 */
export function insertContract(
  sql: SqlStorage,
  input: ContractInput,
): { contract: ContractRecord; verdict: VerdictRecord; projectCreated: boolean } {
  const now = new Date().toISOString();
  if (!getBlob(sql, input.document.contentHash)) throw new Error("document content is not stored");
  const projectCreated = !getProject(sql, input.project);
  if (projectCreated)
    sql.exec(
      "INSERT INTO projects (name, created_at, created_by) VALUES (?, ?, ?)",
      input.project,
      now,
      input.uploadedBy,
    );
  const version = num(
    sql
      .exec<{ v: number }>("SELECT COALESCE(MAX(version), 0) + 1 AS v FROM contracts WHERE project = ?", input.project)
      .one().v,
  );
  const d = input.document;
  sql.exec(
    `INSERT INTO contracts (project, version, label, content_hash, size, format, openapi_version, operation_count, uploaded_by, uploaded_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    input.project,
    version,
    input.label,
    d.contentHash,
    d.size,
    d.format,
    d.openapiVersion,
    d.operationCount,
    input.uploadedBy,
    now,
  );
  const contractId = num(sql.exec<{ id: number }>("SELECT last_insert_rowid() AS id").one().id);
  const verdictId = insertVerdict(sql, input.project, "contract", contractId, null, input.verdict, now);
  if (input.change) {
    const compared = sql
      .exec<{ id: number }>(
        "SELECT id FROM contracts WHERE project = ? AND version = ?",
        input.project,
        input.change.comparedWithVersion,
      )
      .one();
    const change = input.change.verdict;
    if (!getBlob(sql, change.verdictHash)) throw new Error("change verdict body is not stored");
    sql.exec(
      `INSERT INTO contract_changes (contract_id, compared_contract_id, approved, total_violations, error_count, verdict_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      contractId,
      compared.id,
      change.approved ? 1 : 0,
      change.totalViolations,
      change.errorCount,
      change.verdictHash,
      now,
    );
  }
  const active = sql
    .exec<{ id: number | null }>("SELECT active_contract_id AS id FROM projects WHERE name = ?", input.project)
    .one().id;
  if (input.activate || active === null)
    sql.exec("UPDATE projects SET active_contract_id = ? WHERE name = ?", contractId, input.project);
  return {
    contract: getContract(sql, input.project, version)!,
    verdict: getVerdict(sql, input.project, verdictId)!,
    projectCreated,
  };
}

export function activateContract(sql: SqlStorage, project: string, version: number): ContractRecord | null {
  const row = sql
    .exec<{ id: number }>("SELECT id FROM contracts WHERE project = ? AND version = ?", project, version)
    .toArray()[0];
  if (!row) return null;
  sql.exec("UPDATE projects SET active_contract_id = ? WHERE name = ?", row.id, project);
  return getContract(sql, project, version);
}

// ---- snapshots ------------------------------------------------------------------------------------------

const SNAPSHOT_FROM = `
  FROM snapshots s
  JOIN contracts c ON c.id = s.contract_id
  LEFT JOIN verdicts v ON v.subject = 'snapshot' AND v.snapshot_id = s.id`;
const SNAPSHOT_COLUMNS = `s.*, c.version AS contract_version, v.id AS verdict_id, v.approved AS approved, v.total_violations AS total_violations`;
/** One snapshot with its number in the project (stored with it: schema-upgrade.ts numbered older stores' rows). */
const SNAPSHOT_SELECT = `SELECT ${SNAPSHOT_COLUMNS} ${SNAPSHOT_FROM}`;

function toSnapshot(row: Row): SnapshotRecord {
  return {
    id: num(row.id),
    number: num(row.number),
    project: str(row.project),
    commit: str(row.commit_sha),
    branch: optStr(row.branch),
    runUrl: optStr(row.run_url),
    ...facts(row),
    contractVersion: num(row.contract_version),
    uploadedBy: str(row.uploaded_by),
    uploadedAt: str(row.uploaded_at),
    verdictId: optNum(row.verdict_id),
    approved: row.approved === null ? null : num(row.approved) === 1,
    totalViolations: optNum(row.total_violations),
  };
}

export function getSnapshot(sql: SqlStorage, project: string, id: number): SnapshotRecord | null {
  const row = sql.exec(`${SNAPSHOT_SELECT} WHERE s.project = ? AND s.id = ?`, project, id).toArray()[0];
  return row ? toSnapshot(row) : null;
}

export function getLatestSnapshot(sql: SqlStorage, project: string): SnapshotRecord | null {
  const row = sql.exec(`${SNAPSHOT_SELECT} WHERE s.project = ? ORDER BY s.id DESC LIMIT 1`, project).toArray()[0];
  return row ? toSnapshot(row) : null;
}

export function listSnapshots(
  sql: SqlStorage,
  project: string,
  limit: number,
  before: number | null,
): Page<SnapshotRecord> {
  const found = sql
    .exec(
      `SELECT ${SNAPSHOT_COLUMNS} ${SNAPSHOT_FROM} WHERE s.project = ? AND s.id < ? ORDER BY s.id DESC LIMIT ?`,
      project,
      before ?? Number.MAX_SAFE_INTEGER,
      limit + 1,
    )
    .toArray();
  // Each row carries its own number: a page costs its rows, and numbers stay when retention deletes older rows.
  return page(found.map(toSnapshot), limit, (s) => s.id);
}

export interface SnapshotInput {
  project: string;
  /** The contract version the verdict was computed against. */
  contractVersion: number;
  commit: string;
  branch: string | null;
  runUrl: string | null;
  document: DocumentFacts;
  uploadedBy: string;
  verdict: VerdictInput;
}

export function insertSnapshot(
  sql: SqlStorage,
  input: SnapshotInput,
): { snapshot: SnapshotRecord; verdict: VerdictRecord } | null {
  const contract = sql
    .exec<{ id: number }>(
      "SELECT id FROM contracts WHERE project = ? AND version = ?",
      input.project,
      input.contractVersion,
    )
    .toArray()[0];
  if (!contract) return null;
  if (!getBlob(sql, input.document.contentHash)) throw new Error("document content is not stored");
  const now = new Date().toISOString();
  const d = input.document;
  // One more than the project's newest snapshot, which retention never deletes: numbers are never reused.
  const number =
    num(
      sql
        .exec<{ number: number | null }>(
          "SELECT number FROM snapshots WHERE project = ? ORDER BY id DESC LIMIT 1",
          input.project,
        )
        .toArray()[0]?.number ?? 0,
    ) + 1;
  sql.exec(
    `INSERT INTO snapshots (project, seq, number, commit_sha, branch, run_url, content_hash, size, format, openapi_version, operation_count, contract_id, uploaded_by, uploaded_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    input.project,
    nextSequence(sql),
    number,
    input.commit,
    input.branch,
    input.runUrl,
    d.contentHash,
    d.size,
    d.format,
    d.openapiVersion,
    d.operationCount,
    contract.id,
    input.uploadedBy,
    now,
  );
  const snapshotId = num(sql.exec<{ id: number }>("SELECT last_insert_rowid() AS id").one().id);
  const verdictId = insertVerdict(sql, input.project, "snapshot", contract.id, snapshotId, input.verdict, now);
  return {
    snapshot: getSnapshot(sql, input.project, snapshotId)!,
    verdict: getVerdict(sql, input.project, verdictId)!,
  };
}

// ---- builds ---------------------------------------------------------------------------------------------

function toBuild(row: Row): BuildRecord {
  return {
    id: num(row.id),
    project: str(row.project),
    status: "failed",
    commit: str(row.commit_sha),
    branch: optStr(row.branch),
    runUrl: optStr(row.run_url),
    logExcerpt: str(row.log_excerpt),
    recordedBy: str(row.recorded_by),
    recordedAt: str(row.recorded_at),
  };
}

export interface BuildInput {
  project: string;
  commit: string;
  branch: string | null;
  runUrl: string | null;
  logExcerpt: string;
  recordedBy: string;
}

export function insertBuild(sql: SqlStorage, input: BuildInput): BuildRecord {
  sql.exec(
    `INSERT INTO builds (project, seq, commit_sha, branch, run_url, log_excerpt, recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    input.project,
    nextSequence(sql),
    input.commit,
    input.branch,
    input.runUrl,
    input.logExcerpt,
    input.recordedBy,
    new Date().toISOString(),
  );
  const id = num(sql.exec<{ id: number }>("SELECT last_insert_rowid() AS id").one().id);
  return getBuild(sql, input.project, id)!;
}

export function getBuild(sql: SqlStorage, project: string, id: number): BuildRecord | null {
  const row = sql.exec("SELECT * FROM builds WHERE project = ? AND id = ?", project, id).toArray()[0];
  return row ? toBuild(row) : null;
}

export function listBuilds(sql: SqlStorage, project: string, limit: number, before: number | null): Page<BuildRecord> {
  const rows = sql
    .exec(
      "SELECT * FROM builds WHERE project = ? AND id < ? ORDER BY id DESC LIMIT ?",
      project,
      before ?? Number.MAX_SAFE_INTEGER,
      limit + 1,
    )
    .toArray()
    .map(toBuild);
  return page(rows, limit, (b) => b.id);
}

// ---- status ---------------------------------------------------------------------------------------------

export function projectStatus(sql: SqlStorage, name: string): ProjectStatus | null {
  const project = getProject(sql, name);
  if (!project) return null;
  const latestSnapshot = getLatestSnapshot(sql, name);
  const buildRow = sql.exec("SELECT * FROM builds WHERE project = ? ORDER BY id DESC LIMIT 1", name).toArray()[0];
  const snapshotSeq = latestSnapshot
    ? num(sql.exec<{ seq: number }>("SELECT seq FROM snapshots WHERE id = ?", latestSnapshot.id).one().seq)
    : 0;
  return {
    project,
    activeContract: getActiveContract(sql, name),
    latestSnapshot,
    latestFailedBuild: buildRow ? toBuild(buildRow) : null,
    lastBuildFailed: buildRow ? num(buildRow.seq) > snapshotSeq : false,
  };
}
