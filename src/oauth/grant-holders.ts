/**
 * Which members of an organization have granted access to a client. The OAuth library lists grants per user
 * only, so the admin console, GET /api/v1/clients and the grant sweeps need the organization's users first: this
 * index is written when /authorize completes a grant, before the grant itself, and listed per organization.
 *
 * Storage: OAUTH_KV, one key per member, `arbiter:grant-holders:v1:<organization>:<encodeURIComponent(subject)>`,
 * value "1", metadata `{ name, since }` (display name, first grant time), no expiry. The key is written only
 * when it is missing (one KV read per completed authorization, one write per member ever), so KV's limit of
 * one write per second per key is never approached. A member's entry stays while the organization does: a member
 * whose grants are all revoked simply lists no grants (removing the entry could race a new grant and hide it). A
 * deleted organization's entries (display names among them) go with its grants (forgetGrantHolders). KV lists are
 * eventually consistent across locations, so a member's first grant can take up to about 60 s to show in
 * another location; their grants themselves are read from the library at request time.
 */
import type { Env } from "../env";
import { logWarn } from "../lib/log";

const PREFIX = "arbiter:grant-holders:v1";

export interface GrantHolder {
  /** The member's subject (dev user key or OIDC `sub`), as GrantProps.userId holds it. */
  subject: string;
  name: string;
  /** When the index first saw a grant of this member (ISO 8601). */
  since: string;
}

interface HolderMetadata {
  name?: unknown;
  since?: unknown;
}

function organizationPrefix(organizationId: string): string {
  return `${PREFIX}:${encodeURIComponent(organizationId)}:`;
}

function holderKey(organizationId: string, subject: string): string {
  return `${organizationPrefix(organizationId)}${encodeURIComponent(subject)}`;
}

/**
 * Notes that `identity` (the signed-in member who granted, src/auth/identity.ts) holds a grant, before /authorize
 * makes the grant: organization-wide revocations (grant-sweep.ts) and the connected-clients lists find grants only
 * through this index, so a grant is never made without its entry. Answers whether the entry is there; a KV failure is
 * logged and answered false, and the authorization is then refused, to be tried again.
 */
export async function rememberGrantHolder(
  env: Env,
  identity: { organizationId: string; subject: string; name: string },
  now = Date.now(),
): Promise<boolean> {
  const key = holderKey(identity.organizationId, identity.subject);
  try {
    if ((await env.OAUTH_KV.get(key)) !== null) return true;
    await env.OAUTH_KV.put(key, "1", {
      metadata: { name: identity.name.slice(0, 200), since: new Date(now).toISOString() },
    });
    return true;
  } catch (error) {
    logWarn("grant holder index not updated; the grant is refused", { organizationId: identity.organizationId, error });
    return false;
  }
}

/** One member's entry, or null when they never completed a grant (one KV read). */
export async function grantHolder(env: Env, organizationId: string, subject: string): Promise<GrantHolder | null> {
  const found = await env.OAUTH_KV.getWithMetadata<HolderMetadata>(holderKey(organizationId, subject));
  if (found.value === null) return null;
  const name = typeof found.metadata?.name === "string" ? found.metadata.name : subject;
  const since = typeof found.metadata?.since === "string" ? found.metadata.since : "";
  return { subject, name, since };
}

/** One KV list page of holders; `cursor` is KV's, null after the last page. */
async function holderPage(
  env: Env,
  organizationId: string,
  limit: number,
  cursor: string | undefined,
): Promise<{ holders: GrantHolder[]; cursor: string | null }> {
  const prefix = organizationPrefix(organizationId);
  const page = await env.OAUTH_KV.list<HolderMetadata>({ prefix, limit, ...(cursor ? { cursor } : {}) });
  const holders: GrantHolder[] = [];
  for (const entry of page.keys) {
    let subject: string;
    try {
      subject = decodeURIComponent(entry.name.slice(prefix.length));
    } catch {
      continue;
    }
    const name = typeof entry.metadata?.name === "string" ? entry.metadata.name : subject;
    const since = typeof entry.metadata?.since === "string" ? entry.metadata.since : "";
    holders.push({ subject, name, since });
  }
  return { holders, cursor: page.list_complete ? null : page.cursor };
}

/** At most `limit` members of `organizationId` that completed a grant, in subject order, from `cursor` on. */
export function listGrantHolderPage(
  env: Env,
  organizationId: string,
  page: { limit: number; cursor?: string },
): Promise<{ holders: GrantHolder[]; cursor: string | null }> {
  return holderPage(env, organizationId, page.limit, page.cursor);
}

/**
 * Removes up to `limit` entries of the organization's index, from the first: once its grants are revoked (its
 * deletion), so that no member name or subject stays behind in KV. The number removed; 0 when none is left.
 */
export async function forgetGrantHolderPage(
  env: Pick<Env, "OAUTH_KV">,
  organizationId: string,
  limit: number,
): Promise<number> {
  const page = await env.OAUTH_KV.list({ prefix: organizationPrefix(organizationId), limit });
  await Promise.all(page.keys.map((entry) => env.OAUTH_KV.delete(entry.name)));
  return page.keys.length;
}
