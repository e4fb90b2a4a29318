/** CI keys of one organization. Only the SHA-256 of the whole key is stored; the key itself is shown once. */
import { MAX_ACTIVE_KEYS } from "./limits";
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

/** Stores the key, unless the organization already has MAX_ACTIVE_KEYS active at `nowIso`: then null, nothing stored. */
export function insertKeyWithinLimit(sql: SqlStorage, key: NewKey, nowIso: string): CiKeyRecord | null {
  return keyCounts(sql, nowIso).active >= MAX_ACTIVE_KEYS ? null : insertKey(sql, key);
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

/** A page of keys, newest first: at most `limit` (all without one), after the key `after` names. */
export interface KeyPage {
  limit?: number | null;
  /** The id of the last key of the previous page. */
  after?: string | null;
}

/**
 * The organization's keys, newest first (ties by id), a page at a time; null when `after` names no key of this
 * store (a cursor from elsewhere: keys are never deleted, so one this store gave out stays valid).
 */
export function listKeys(sql: SqlStorage, page: KeyPage = {}): CiKeyRecord[] | null {
  const limit = page.limit ?? -1;
  if (page.after == null)
    return sql.exec("SELECT * FROM ci_keys ORDER BY created_at DESC, id DESC LIMIT ?", limit).toArray().map(toKey);
  const from = sql.exec<{ created_at: string }>("SELECT created_at FROM ci_keys WHERE id = ?", page.after).toArray()[0];
  if (!from) return null;
  return sql
    .exec(
      "SELECT * FROM ci_keys WHERE (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?",
      from.created_at,
      page.after,
      limit,
    )
    .toArray()
    .map(toKey);
}

/** How many keys the organization has, by status at `nowIso` (what the console's overview shows). */
export function keyCounts(sql: SqlStorage, nowIso: string): { active: number; revoked: number; expired: number } {
  const row = sql
    .exec<{ revoked: number; expired: number; total: number }>(
      `SELECT COUNT(*) AS total,
              COUNT(revoked_at) AS revoked,
              SUM(CASE WHEN revoked_at IS NULL AND expires_at IS NOT NULL AND expires_at <= ? THEN 1 ELSE 0 END)
                AS expired
         FROM ci_keys`,
      nowIso,
    )
    .one();
  const revoked = Number(row.revoked);
  const expired = Number(row.expired ?? 0);
  return { active: Number(row.total) - revoked - expired, revoked, expired };
}

/** The names of the keys among `ids` (at most MAX_NAMED_KEYS looked up), for labelling clients by key. */
export const MAX_NAMED_KEYS = 200;

export function keyNames(sql: SqlStorage, ids: readonly string[]): Record<string, string> {
  const named: Record<string, string> = {};
  for (const id of ids.slice(0, MAX_NAMED_KEYS)) {
    const row = sql.exec<{ name: string }>("SELECT name FROM ci_keys WHERE id = ?", id).toArray()[0];
    if (row) named[id] = String(row.name);
  }
  return named;
}

/**
 * How long a key's record stays once the key ended (revoked or expired): listed and named that long, then deleted by
 * the organization store's retention run, so that a CI minting a key per pipeline does not grow the store for good.
 */
export const ENDED_KEY_DAYS = 90;
/** Ended keys deleted per retention run; the run comes back a second later while more are due. */
export const ENDED_KEYS_PER_RUN = 1000;

/** Deletes up to ENDED_KEYS_PER_RUN records of keys that ended more than ENDED_KEY_DAYS before `now`; how many. */
export function deleteEndedKeys(sql: SqlStorage, now: number): number {
  const cutoff = new Date(now - ENDED_KEY_DAYS * 86_400_000).toISOString();
  return sql.exec(
    `DELETE FROM ci_keys WHERE rowid IN (
       SELECT rowid FROM ci_keys WHERE revoked_at < ? OR expires_at < ? LIMIT ?)`,
    cutoff,
    cutoff,
    ENDED_KEYS_PER_RUN,
  ).rowsWritten;
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
