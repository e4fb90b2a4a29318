/**
 * The CI keys an organization's store keeps: created, listed, revoked and looked up for validation. Who may do
 * which, and the audit of it, is the OAuth side's (src/oauth/cikey-admin.ts); only the records are here.
 */
import type { Env } from "../../env";
import { contractStore } from "../store/client";
import type { CiKeyRecord } from "../store/records";
import type { NewKey } from "../store/key-table";

export function storeKey(env: Env, organizationId: string, key: NewKey): Promise<CiKeyRecord> {
  return contractStore(env, organizationId).createKey(key);
}

export function keyRecords(env: Env, organizationId: string): Promise<CiKeyRecord[]> {
  return contractStore(env, organizationId).listKeys();
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
