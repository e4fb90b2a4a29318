/**
 * Whether someone still holds a grant for an OAuth client. Consent asks it (a client already approved is not asked
 * about again), and so do the long-lived streams before they deliver a change: a member removed, demoted beyond
 * their grant's scopes, or whose client an administrator revoked hears nothing more on a stream opened before.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../env";
import { getAuthorizationServer, grantInOrganization, grantUserId } from "./servers";

/** Whether `subject` holds a grant for `clientId` made in `organizationId` (grantInOrganization). */
export async function hasLiveGrant(
  oauth: OAuthHelpers,
  organizationId: string,
  subject: string,
  clientId: string,
): Promise<boolean> {
  const userId = grantUserId(organizationId, subject);
  let cursor: string | undefined;
  do {
    const page = await oauth.listUserGrants(userId, cursor ? { cursor } : {});
    if (page.items.some((grant) => grant.clientId === clientId && grantInOrganization(grant, organizationId)))
      return true;
    cursor = page.cursor;
  } while (cursor);
  return false;
}

/** Who holds a stream: organization, subject and OAuth client. */
export interface GrantHolder {
  organizationId: string;
  userId: string;
  clientId: string;
}

/** Whether the holder of a stream still holds a grant for its client. */
export function stillGranted(env: Env, holder: GrantHolder): Promise<boolean> {
  const oauth = getAuthorizationServer(env).getOAuthApi(env);
  return hasLiveGrant(oauth, holder.organizationId, holder.userId, holder.clientId);
}

/**
 * How long a stream trusts its last answer: the grant listing is read from KV, whose lists may lag a change by up
 * to a minute anyway, so asking more often would cost a read per change and stream for nothing.
 */
export const GRANT_RECHECK_MS = 60_000;

/** One stream holder's grant, asked again at most every GRANT_RECHECK_MS while it holds. */
export class GrantWatch {
  private checkedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly holder: GrantHolder) {}

  async holds(env: Env, now = Date.now()): Promise<boolean> {
    if (now - this.checkedAt < GRANT_RECHECK_MS) return true;
    if (!(await stillGranted(env, this.holder))) return false;
    this.checkedAt = now;
    return true;
  }
}
