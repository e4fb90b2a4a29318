/**
 * KV keys of the window counters: `ratelimit:v1:<organization>:<client>:<target>`. The client id is
 * URI-encoded (CIMD client ids are URLs); an overlong one is replaced by its SHA-256 so the key stays
 * under KV's 512-byte limit.
 */
import { sha256Hex } from "../lib/sha256";

const PREFIX = "ratelimit:v1";
const MAX_CLIENT_PART = 200;

export async function counterKey(organizationId: string, clientId: string, target: string): Promise<string> {
  const encoded = encodeURIComponent(clientId);
  const client = encoded.length <= MAX_CLIENT_PART ? encoded : `sha256-${await sha256Hex(clientId)}`;
  return `${PREFIX}:${encodeURIComponent(organizationId)}:${client}:${encodeURIComponent(target)}`;
}

/** The coordinator Durable Object serving one (organization, client). */
export function coordinatorName(organizationId: string, clientId: string): string {
  return JSON.stringify([organizationId, clientId]);
}
