/**
 * Accepted breaks of a project (src/engine/verdict/acceptance.ts): who accepted which change, why and until when. Rows are
 * never deleted by the product: a revoked or expired acceptance stays listed with its state, so the list says what
 * was accepted and what no longer applies instead of rotting. A verdict that used an acceptance marks it matched.
 */
import type { AcceptedBreak } from "../../engine";

type Row = Record<string, SqlStorageValue>;

/**
 * in-force: accepted, not expired, and matched by the project's latest snapshot (or no snapshot since it was made);
 * not-matching: in force, but the latest snapshot's verdict no longer has the change (fixed, or the place moved);
 * expired; revoked.
 */
export type AcceptanceState = "in-force" | "not-matching" | "expired" | "revoked";

export interface AcceptedBreakRecord {
  id: string;
  project: string;
  fingerprint: string;
  rule: string;
  location: string;
  reason: string;
  owner: string;
  expiresAt: string;
  createdAt: string;
  createdBy: string;
  revokedAt: string | null;
  revokedBy: string | null;
  /** The last verdict that turned the break into "accepted". */
  lastMatchedAt: string | null;
  lastMatchedSnapshotId: number | null;
  state: AcceptanceState;
}

export interface NewAcceptance {
  project: string;
  fingerprint: string;
  rule: string;
  location: string;
  reason: string;
  owner: string;
  expiresAt: string;
  createdBy: string;
}

const ID_PREFIX = "ab-";

/** "ab-12" -> 12; null for anything else. */
export function acceptanceRowId(id: string): number | null {
  if (!id.startsWith(ID_PREFIX)) return null;
  const n = Number(id.slice(ID_PREFIX.length));
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

const text = (value: SqlStorageValue | undefined) => (value == null ? null : String(value));

function stateOf(row: Row, now: number, latestSnapshotId: number | null): AcceptanceState {
  if (row.revoked_at != null) return "revoked";
  if (Date.parse(String(row.expires_at)) <= now) return "expired";
  const snapshotSince = latestSnapshotId !== null && latestSnapshotId > Number(row.snapshot_at_creation ?? 0);
  return snapshotSince && Number(row.last_matched_snapshot ?? 0) !== latestSnapshotId ? "not-matching" : "in-force";
}

function toRecord(row: Row, now: number, latestSnapshotId: number | null): AcceptedBreakRecord {
  return {
    id: `${ID_PREFIX}${Number(row.id)}`,
    project: String(row.project),
    fingerprint: String(row.fingerprint),
    rule: String(row.rule),
    location: String(row.location),
    reason: String(row.reason),
    owner: String(row.owner),
    expiresAt: String(row.expires_at),
    createdAt: String(row.created_at),
    createdBy: String(row.created_by),
    revokedAt: text(row.revoked_at),
    revokedBy: text(row.revoked_by),
    lastMatchedAt: text(row.last_matched_at),
    lastMatchedSnapshotId: row.last_matched_snapshot == null ? null : Number(row.last_matched_snapshot),
    state: stateOf(row, now, latestSnapshotId),
  };
}

function latestSnapshotId(sql: SqlStorage, project: string): number | null {
  const row = sql
    .exec<{ id: number }>("SELECT id FROM snapshots WHERE project = ? ORDER BY id DESC LIMIT 1", project)
    .toArray()[0];
  return row ? Number(row.id) : null;
}

/** The acceptances in force for a project's verdicts now (not revoked, not expired), as the engine takes them. */
export function acceptancesInForce(sql: SqlStorage, project: string, now: number): AcceptedBreak[] {
  return sql
    .exec(
      "SELECT id, rule, fingerprint, reason, owner, expires_at FROM accepted_breaks WHERE project = ? AND revoked_at IS NULL AND expires_at > ?",
      project,
      new Date(now).toISOString(),
    )
    .toArray()
    .filter((row) => Date.parse(String(row.expires_at)) > now)
    .map((row) => ({
      id: `${ID_PREFIX}${Number(row.id)}`,
      rule: String(row.rule),
      fingerprint: String(row.fingerprint),
      reason: String(row.reason),
      owner: String(row.owner),
      expiresAt: String(row.expires_at),
    }));
}

export function getAcceptance(sql: SqlStorage, project: string, id: string, now: number): AcceptedBreakRecord | null {
  const rowId = acceptanceRowId(id);
  if (rowId === null) return null;
  const row = sql.exec("SELECT * FROM accepted_breaks WHERE id = ? AND project = ?", rowId, project).toArray()[0];
  return row ? toRecord(row, now, latestSnapshotId(sql, project)) : null;
}

/** Newest first; at most `limit`. */
export function listAcceptances(sql: SqlStorage, project: string, now: number, limit: number): AcceptedBreakRecord[] {
  const latest = latestSnapshotId(sql, project);
  return sql
    .exec("SELECT * FROM accepted_breaks WHERE project = ? ORDER BY id DESC LIMIT ?", project, limit)
    .toArray()
    .map((row) => toRecord(row, now, latest));
}

/** Records an acceptance; the caller checked that none in force has the same fingerprint. */
export function insertAcceptance(sql: SqlStorage, input: NewAcceptance, now: number): AcceptedBreakRecord {
  const cursor = sql.exec(
    `INSERT INTO accepted_breaks (project, fingerprint, rule, location, reason, owner, expires_at, created_at, created_by, snapshot_at_creation)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    input.project,
    input.fingerprint,
    input.rule,
    input.location,
    input.reason,
    input.owner,
    input.expiresAt,
    new Date(now).toISOString(),
    input.createdBy,
    latestSnapshotId(sql, input.project),
  );
  const id = Number(cursor.one().id);
  return getAcceptance(sql, input.project, `${ID_PREFIX}${id}`, now)!;
}

/** Revokes once: a second revocation keeps the first time and revoker. */
export function revokeAcceptance(
  sql: SqlStorage,
  project: string,
  id: string,
  revokedBy: string,
  now: number,
): AcceptedBreakRecord | null {
  const rowId = acceptanceRowId(id);
  if (rowId === null) return null;
  sql.exec(
    "UPDATE accepted_breaks SET revoked_at = ?, revoked_by = ? WHERE id = ? AND project = ? AND revoked_at IS NULL",
    new Date(now).toISOString(),
    revokedBy,
    rowId,
    project,
  );
  return getAcceptance(sql, project, id, now);
}

/** The acceptances a recorded verdict used: matched now, and by this snapshot when it is one. */
export function markMatched(sql: SqlStorage, ids: readonly string[], snapshotId: number | null, now: number): void {
  for (const id of new Set(ids)) {
    const rowId = acceptanceRowId(id);
    if (rowId === null) continue;
    sql.exec(
      "UPDATE accepted_breaks SET last_matched_at = ?, last_matched_snapshot = COALESCE(?, last_matched_snapshot) WHERE id = ?",
      new Date(now).toISOString(),
      snapshotId,
      rowId,
    );
  }
}
