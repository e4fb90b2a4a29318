/** CI keys of one organization. Only the SHA-256 of the whole key is stored; the key itself is shown once. */
import type { CiKeyRecord } from "./records";

type Row = Record<string, SqlStorageValue>;

function toKey(row: Row): CiKeyRecord {
  return {
    id: String(row.id),
    name: String(row.name),
    projects: JSON.parse(String(row.projects)) as string[],
    scopes: JSON.parse(String(row.scopes)) as string[],
    createdBy: String(row.created_by),
    createdAt: String(row.created_at),
    expiresAt: row.expires_at == null ? null : String(row.expires_at),
    revokedAt: row.revoked_at == null ? null : String(row.revoked_at),
    revokedBy: row.revoked_by == null ? null : String(row.revoked_by),
  };
}

export interface NewKey {
  id: string;
  name: string;
  secretHash: string;
  projects: string[];
  scopes: string[];
  createdBy: string;
  expiresAt: string | null;
}

export function insertKey(sql: SqlStorage, key: NewKey): CiKeyRecord {
  sql.exec(
    `INSERT INTO ci_keys (id, name, secret_hash, projects, scopes, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    key.id,
    key.name,
    key.secretHash,
    JSON.stringify(key.projects),
    JSON.stringify(key.scopes),
    key.createdBy,
    new Date().toISOString(),
    key.expiresAt,
  );
  return getKey(sql, key.id)!;
}

export function getKey(sql: SqlStorage, id: string): CiKeyRecord | null {
  const row = sql.exec("SELECT * FROM ci_keys WHERE id = ?", id).toArray()[0];
  return row ? toKey(row) : null;
}

/** The record plus the stored hash, for validation only (never returned over REST). */
export function getKeyWithHash(sql: SqlStorage, id: string): { key: CiKeyRecord; secretHash: string } | null {
  const row = sql.exec("SELECT * FROM ci_keys WHERE id = ?", id).toArray()[0];
  return row ? { key: toKey(row), secretHash: String(row.secret_hash) } : null;
}

export function listKeys(sql: SqlStorage): CiKeyRecord[] {
  return sql.exec("SELECT * FROM ci_keys ORDER BY created_at DESC, id").toArray().map(toKey);
}

/** Revokes once: a second revocation keeps the first time and revoker. */
export function revokeKey(sql: SqlStorage, id: string, revokedBy: string): CiKeyRecord | null {
  sql.exec(
    "UPDATE ci_keys SET revoked_at = ?, revoked_by = ? WHERE id = ? AND revoked_at IS NULL",
    new Date().toISOString(),
    revokedBy,
    id,
  );
  return getKey(sql, id);
}
