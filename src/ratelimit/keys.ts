/**
 * KV keys of the window counters: `ratelimit:v1:<organization>:<client>:<target>`. The client id is
 * URI-encoded (CIMD client ids are URLs); an overlong one is replaced by its SHA-256 so the key stays
 * under KV's 512-byte limit.
 */
const PREFIX = "ratelimit:v1";
const MAX_CLIENT_PART = 200;

async function sha256Hex(text: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function counterKey(organizationId: string, clientId: string, target: string): Promise<string> {
  const encoded = encodeURIComponent(clientId);
  const client = encoded.length <= MAX_CLIENT_PART ? encoded : `sha256-${await sha256Hex(clientId)}`;
  return `${PREFIX}:${encodeURIComponent(organizationId)}:${client}:${encodeURIComponent(target)}`;
}

/** The coordinator Durable Object serving one (organization, client). */
export function coordinatorName(organizationId: string, clientId: string): string {
  return JSON.stringify([organizationId, clientId]);
}
