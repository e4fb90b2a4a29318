/**
 * CI keys: long-lived credentials for pipelines, issued by an organization admin over REST. A key reads
 * `arb_ci_<organization>_<id>_<secret>`: the organization and id say where to look it up (they are not
 * secret), the 256-bit secret is shown once and only its SHA-256 (of the whole key) is stored. Keys are
 * accepted by the REST resource only (never /mcp), limited to their projects and scopes, and refused once
 * revoked or past their expiry. The OAuth provider's check of a presented key is in
 * src/oauth/ci-key-validation.ts.
 */
import { base64url } from "jose";
import { sha256Digest } from "../lib/sha256";

export const CI_KEY_PREFIX = "arb_ci_";

/** A CI key's principal has the client id `ci-key:<id>` (audit records, uploader, rate-limit bucket). */
export const CI_KEY_CLIENT_PREFIX = "ci-key:";

/** What a CI key may carry: the REST scopes a pipeline needs, never administration. */
export const CI_KEY_SCOPES = ["contracts.read", "contracts.write", "snapshots.write"] as const;

const KEY_PATTERN = /^arb_ci_([a-z0-9][a-z0-9-]{0,62})_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface ParsedCiKey {
  organizationId: string;
  id: string;
}

export function looksLikeCiKey(token: string): boolean {
  return token.startsWith(CI_KEY_PREFIX);
}

export function parseCiKey(token: string): ParsedCiKey | null {
  const match = KEY_PATTERN.exec(token);
  return match ? { organizationId: match[1]!, id: match[2]! } : null;
}

/** A fresh key for `organizationId`: the id to store, the key to show once and the hash to keep. */
export async function generateCiKey(organizationId: string): Promise<{ id: string; key: string; secretHash: string }> {
  const id = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
  const key = `${CI_KEY_PREFIX}${organizationId}_${id}_${base64url.encode(crypto.getRandomValues(new Uint8Array(32)))}`;
  return { id, key, secretHash: await sha256Digest(new TextEncoder().encode(key)) };
}
