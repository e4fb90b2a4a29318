/**
 * The CI keys an organization's store keeps: created, listed, revoked and looked up for validation. Who may do
 * which, and the audit of it, is the OAuth side's (src/oauth/cikey-admin.ts); only the records are here.
 */
import type { Env } from "../../env";
import { contractStore } from "../store/client";
import type { CiKeyRecord } from "../store/records";
import type { KeyPage, NewKey } from "../store/key-table";
import { Failure } from "../../core/failure";

/** Stores the key; null when the organization has MAX_ACTIVE_KEYS active keys already (nothing stored). */
export function storeKey(env: Env, organizationId: string, key: NewKey): Promise<CiKeyRecord | null> {
  return contractStore(env, organizationId).createKey(key);
}

/**
 * The organization's keys, newest first, a page at a time (every key without `limit`); `after` is the id of the
 * previous page's last key. A cursor that names no key of the organization is refused, saying how to start over.
 */
export async function keyRecords(env: Env, organizationId: string, page: KeyPage = {}): Promise<CiKeyRecord[]> {
  const keys = await contractStore(env, organizationId).listKeys(page);
  if (keys === null)
    throw new Failure(
      "invalid_input",
      `Invalid query parameters: after must be the nextAfter of the previous page, the id of a CI key of your organization; there is no key ${String(page.after).slice(0, 40)}. Leave after out to start from the newest key.`,
      {},
      "invalid_query",
    );
  return keys;
}

/** How many of the organization's keys are active, revoked and expired now. */
export function keyCountsNow(
  env: Env,
  organizationId: string,
): Promise<{ active: number; revoked: number; expired: number }> {
  return contractStore(env, organizationId).keyCounts(new Date().toISOString());
}

/** The names of the keys among `ids` (ids of no key are left out), for labelling clients by key. */
export function keyNamesOf(env: Env, organizationId: string, ids: string[]): Promise<Record<string, string>> {
  return ids.length === 0 ? Promise.resolve({}) : contractStore(env, organizationId).keyNames(ids);
}

/**
 * Revokes key `id` by `revokedBy`: the key as it was before and as it is now (both null when there is no such
 * key; `before.revokedAt` set when it was already revoked).
 */
export async function revokeKeyRecord(
  env: Env,
  organizationId: string,
  id: string,
  revokedBy: string,
): Promise<{ before: CiKeyRecord | null; after: CiKeyRecord | null }> {
  const store = contractStore(env, organizationId);
  const before = await store.getKey(id);
  return { before, after: before ? await store.revokeKey(id, revokedBy) : null };
}

/** The key `id` with its secret's hash, for a request that presents it. */
export function keyForValidation(
  env: Env,
  organizationId: string,
  id: string,
): Promise<{ key: CiKeyRecord; secretHash: string } | null> {
  return contractStore(env, organizationId).keyForValidation(id);
}
