/**
 * KV keys of the window counters: `ratelimit:v1:<organization>:<client>:<target>`. The client id is
 * URI-encoded (CIMD client ids are URLs); an overlong one is replaced by its SHA-256 so the key stays
 * under KV's 512-byte limit.
 */
import { sha256Hex } from "../lib/sha256";

const PREFIX = "ratelimit:v1";
const MAX_CLIENT_PART = 200;

/** The rate-limit bucket all REST routes of one client share (policies/rate-limits.json `rest`). */
export const REST_RATE_LIMIT_TARGET = "rest";

export async function counterKey(organizationId: string, clientId: string, target: string): Promise<string> {
  const encoded = encodeURIComponent(clientId);
  const client = encoded.length <= MAX_CLIENT_PART ? encoded : `sha256-${await sha256Hex(clientId)}`;
  return `${PREFIX}:${encodeURIComponent(organizationId)}:${client}:${encodeURIComponent(target)}`;
}

/** The coordinator Durable Object serving one (organization, client). */
export function coordinatorName(organizationId: string, clientId: string): string {
  return JSON.stringify([organizationId, clientId]);
}

/**
 * The client ids with a counter in KV for this organization: a window can still be open after its grant was
 * revoked. Counters of overlong ids (stored by their SHA-256) are matched against `known`; others are read back
 * from the key.
 */
export async function clientsWithCounters(
  kv: KVNamespace,
  organizationId: string,
  known: readonly string[],
): Promise<string[]> {
  const prefix = `${PREFIX}:${encodeURIComponent(organizationId)}:`;
  const byKeyPart = new Map<string, string>();
  for (const clientId of known) {
    const key = await counterKey(organizationId, clientId, REST_RATE_LIMIT_TARGET);
    byKeyPart.set(key.slice(prefix.length).split(":")[0]!, clientId);
  }
  const found = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await kv.list({ prefix, ...(cursor ? { cursor } : {}) });
    for (const entry of page.keys) {
      const part = entry.name.slice(prefix.length).split(":")[0] ?? "";
      const knownId = byKeyPart.get(part);
      if (knownId) found.add(knownId);
      else if (!part.startsWith("sha256-")) {
        try {
          found.add(decodeURIComponent(part));
        } catch {
          // Not a key this limiter wrote.
        }
      }
    }
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  return [...found];
}
