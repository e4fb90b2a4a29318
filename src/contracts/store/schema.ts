/**
 * The SQLite schema of a ContractStore Durable Object (an organization's, or one project's: project-homes.ts). Every table is append-only except
 * `projects.active_contract_id` (which version is active) and the revocation columns of `ci_keys`: uploads,
 * verdicts and build results are never rewritten. Documents and verdict bodies are recorded once per content hash in
 * `blobs`: their bytes are in the DOCUMENTS bucket (bucket.ts) when larger than SQL_CONTENT_MAX, else in
 * `blob_chunks` (a store from before the bucket keeps its larger content there too, in pieces below the 2 MB row
 * limit of Durable Object SQLite).
 *
 * Tables and retention (kept until the organization's object is deleted):
 *   blobs          content hash -> size, where it is stored (`stored_in`: 'sql' in blob_chunks, 'r2' in the DOCUMENTS
 *                  bucket, bucket.ts) and its piece count in SQLite; a row exists only once the content is whole
 *   blob_chunks    (hash, index) -> at most CHUNK_BYTES of the content (content of at most SQL_CONTENT_MAX since
 *                  documents went to R2; a store from before keeps its larger pieces and reads them as before)
 *   projects       created by the first contract upload; points at the active contract version
 *   contracts      every uploaded contract version (per-project version numbers 1, 2, ...)
 *   snapshots      every CI snapshot upload with its commit, branch, run URL and uploader
 *   builds         every failed build reported by CI (commit and a log excerpt)
 *   verdicts       one per contract upload (constitution) and per snapshot (conformance + constitution)
 *   ci_keys        CI keys: only the SHA-256 of the secret is kept
 *   subscribers    MCP sessions that want to hear about a project's latest verdict, with the user who holds each
 *   contract_changes  per contract version: what it breaks for clients of the version active at its upload
 *   exchange_runs  every upload of recorded traffic (HAR / NDJSON): counts, digest and verdict, not the exchanges
 *   default_projects  each user's default project (spec_project_select), for both MCP protocol eras
 *   counters       the sequence that orders snapshots, builds and traffic runs of a project in time
 *   accepted_breaks breaking changes a team accepted per project, with reason, owner and expiry; revoked and
 *                  expired ones stay listed (acceptance-table.ts)
 *   usage_counts   what recorded traffic exercised per project, operation, day, status and field (counts only,
 *                  never a value; usage-table.ts), kept 90 days
 *   retention_runs what the retention alarm deleted, per run (the last 50 runs; retention-table.ts); the
 *                  organization's store also lists its projects' stores' runs
 *   project_homes  the organization's store only: each project living in a store of its own, with the summary that
 *                  store sent after its last write (project-homes.ts)
 *   moved_content  the organization's store only: content a project moved to its own store named, checked and
 *                  deleted by the next alarm run (project-move.ts)
 *   contract_forms  content hash of a contract document -> the blob of one of its forms (verdict-form.ts): form
 *                  version 1 the verdict form, 2 the comparison form (annotations stripped); written with the
 *                  contract version, kept like the document it was made from
 */

export const CHUNK_BYTES = 1024 * 1024;

/** Pieces read back by one store call (4 MiB): under the RPC message limit, and a bounded extra copy on each side. */
export const PIECES_PER_CALL = 4;

export const SCHEMA_STATEMENTS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS blobs (
     hash TEXT PRIMARY KEY,
     size INTEGER NOT NULL,
     chunk_count INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     stored_in TEXT NOT NULL DEFAULT 'sql'
   )`,
  `CREATE TABLE IF NOT EXISTS blob_chunks (
     hash TEXT NOT NULL,
     idx INTEGER NOT NULL,
     data BLOB NOT NULL,
     PRIMARY KEY (hash, idx)
   )`,
  `CREATE TABLE IF NOT EXISTS projects (
     name TEXT PRIMARY KEY,
     created_at TEXT NOT NULL,
     created_by TEXT NOT NULL,
     active_contract_id INTEGER
   )`,
  `CREATE TABLE IF NOT EXISTS contracts (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     project TEXT NOT NULL,
     version INTEGER NOT NULL,
     label TEXT,
     content_hash TEXT NOT NULL,
     size INTEGER NOT NULL,
     format TEXT NOT NULL,
     openapi_version TEXT NOT NULL,
     operation_count INTEGER NOT NULL,
     uploaded_by TEXT NOT NULL,
     uploaded_at TEXT NOT NULL,
     UNIQUE (project, version)
   )`,
  `CREATE TABLE IF NOT EXISTS snapshots (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     project TEXT NOT NULL,
     seq INTEGER NOT NULL,
     number INTEGER,
     commit_sha TEXT NOT NULL,
     branch TEXT,
     run_url TEXT,
     content_hash TEXT NOT NULL,
     size INTEGER NOT NULL,
     format TEXT NOT NULL,
     openapi_version TEXT NOT NULL,
     operation_count INTEGER NOT NULL,
     contract_id INTEGER NOT NULL,
     uploaded_by TEXT NOT NULL,
     uploaded_at TEXT NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS snapshots_by_project ON snapshots (project, id)`,
  `CREATE TABLE IF NOT EXISTS builds (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     project TEXT NOT NULL,
     seq INTEGER NOT NULL,
     commit_sha TEXT NOT NULL,
     branch TEXT,
     run_url TEXT,
     log_excerpt TEXT NOT NULL,
     recorded_by TEXT NOT NULL,
     recorded_at TEXT NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS builds_by_project ON builds (project, id)`,
  `CREATE TABLE IF NOT EXISTS verdicts (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     project TEXT NOT NULL,
     subject TEXT NOT NULL CHECK (subject IN ('contract', 'snapshot')),
     snapshot_id INTEGER,
     contract_id INTEGER NOT NULL,
     approved INTEGER NOT NULL,
     total_violations INTEGER NOT NULL,
     error_count INTEGER NOT NULL,
     verdict_hash TEXT NOT NULL,
     created_at TEXT NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS verdicts_by_project ON verdicts (project, id)`,
  // The snapshot list joins each snapshot to its verdict: without this, every row read the organization's verdicts.
  `CREATE INDEX IF NOT EXISTS verdicts_by_snapshot ON verdicts (snapshot_id)`,
  `CREATE TABLE IF NOT EXISTS ci_keys (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     secret_hash TEXT NOT NULL,
     projects TEXT NOT NULL,
     scopes TEXT NOT NULL,
     created_by TEXT NOT NULL,
     created_at TEXT NOT NULL,
     expires_at TEXT,
     revoked_at TEXT,
     revoked_by TEXT
   )`,
  // The key list pages newest first: without this, each page sorted every key the organization ever had.
  `CREATE INDEX IF NOT EXISTS ci_keys_by_time ON ci_keys (created_at, id)`,
  `CREATE TABLE IF NOT EXISTS subscribers (
     project TEXT NOT NULL,
     session_id TEXT NOT NULL,
     subscribed_at TEXT NOT NULL,
     user_id TEXT,
     PRIMARY KEY (project, session_id)
   )`,
  `CREATE INDEX IF NOT EXISTS subscribers_by_user ON subscribers (project, user_id)`,
  `CREATE TABLE IF NOT EXISTS contract_changes (
     contract_id INTEGER PRIMARY KEY,
     compared_contract_id INTEGER NOT NULL,
     approved INTEGER NOT NULL,
     total_violations INTEGER NOT NULL,
     error_count INTEGER NOT NULL,
     verdict_hash TEXT NOT NULL,
     created_at TEXT NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS exchange_runs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     project TEXT NOT NULL,
     seq INTEGER NOT NULL,
     contract_id INTEGER NOT NULL,
     format TEXT NOT NULL,
     exchange_count INTEGER NOT NULL,
     upload_digest TEXT NOT NULL,
     approved INTEGER NOT NULL,
     total_violations INTEGER NOT NULL,
     error_count INTEGER NOT NULL,
     verdict_hash TEXT NOT NULL,
     commit_sha TEXT,
     branch TEXT,
     run_url TEXT,
     uploaded_by TEXT NOT NULL,
     uploaded_at TEXT NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS exchange_runs_by_project ON exchange_runs (project, id)`,
  `CREATE TABLE IF NOT EXISTS default_projects (
     user_id TEXT PRIMARY KEY,
     project TEXT NOT NULL,
     set_at TEXT NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS contract_forms (
     content_hash TEXT NOT NULL,
     form_version INTEGER NOT NULL,
     form_hash TEXT NOT NULL,
     PRIMARY KEY (content_hash, form_version)
   )`,
  `CREATE TABLE IF NOT EXISTS retention_runs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     ran_at TEXT NOT NULL,
     snapshots INTEGER NOT NULL,
     builds INTEGER NOT NULL,
     exchange_runs INTEGER NOT NULL,
     content_bytes INTEGER NOT NULL
   )`,
  // Accepted breaks (acceptance-table.ts): snapshot_at_creation is the project's newest snapshot id when it was made.
  `CREATE TABLE IF NOT EXISTS accepted_breaks (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     project TEXT NOT NULL,
     fingerprint TEXT NOT NULL,
     rule TEXT NOT NULL,
     location TEXT NOT NULL,
     reason TEXT NOT NULL,
     owner TEXT NOT NULL,
     expires_at TEXT NOT NULL,
     created_at TEXT NOT NULL,
     created_by TEXT NOT NULL,
     snapshot_at_creation INTEGER,
     revoked_at TEXT,
     revoked_by TEXT,
     last_matched_at TEXT,
     last_matched_snapshot INTEGER
   )`,
  `CREATE INDEX IF NOT EXISTS accepted_breaks_by_project ON accepted_breaks (project, id)`,
  // The usage index (usage-table.ts): one row per project, operation, status, field and day, so the evidence of one
  // finding is one short range (its key's days in the window).
  `CREATE TABLE IF NOT EXISTS usage_counts (
     project TEXT NOT NULL,
     operation TEXT NOT NULL,
     day TEXT NOT NULL,
     status TEXT NOT NULL,
     field TEXT NOT NULL,
     count INTEGER NOT NULL,
     PRIMARY KEY (project, operation, status, field, day)
   )`,
  `CREATE INDEX IF NOT EXISTS usage_counts_by_day ON usage_counts (project, day)`,
  // Retention asks, for each content an expired record named, whether any other record still names it.
  `CREATE INDEX IF NOT EXISTS contracts_by_content ON contracts (content_hash)`,
  `CREATE INDEX IF NOT EXISTS snapshots_by_content ON snapshots (content_hash)`,
  `CREATE INDEX IF NOT EXISTS verdicts_by_body ON verdicts (verdict_hash)`,
  `CREATE INDEX IF NOT EXISTS contract_changes_by_body ON contract_changes (verdict_hash)`,
  `CREATE INDEX IF NOT EXISTS exchange_runs_by_body ON exchange_runs (verdict_hash)`,
  `CREATE INDEX IF NOT EXISTS contract_forms_by_form ON contract_forms (form_hash)`,
  `CREATE TABLE IF NOT EXISTS counters (
     name TEXT PRIMARY KEY,
     value INTEGER NOT NULL
   )`,
  // The organization's store only: content a moved project's records named, deleted by the next alarm run unless a
  // record still names it (project-move.ts).
  `CREATE TABLE IF NOT EXISTS moved_content (
     hash TEXT PRIMARY KEY,
     moved_at TEXT NOT NULL
   )`,
  // The organization's store only: the projects that live in stores of their own, with their last summary.
  `CREATE TABLE IF NOT EXISTS project_homes (
     name TEXT PRIMARY KEY,
     summary TEXT NOT NULL,
     updated_at TEXT NOT NULL
   )`,
];
