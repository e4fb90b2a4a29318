/**
 * An organization's connected clients: the live OAuth grants of its members (from the grant-holder index and
 * the library's per-user grant lists), and revoking one. Shared by the admin console and the REST API
 * (GET /api/v1/clients, DELETE /api/v1/clients/grants/:user/:grant). The organization always comes from the
 * administrator's session or token; a grant is only ever looked up under that organization's user ids, and
 * its stored metadata must name the same organization.
 */
import type { GrantSummary, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { auditSinkFor } from "../audit/sink";
import { recordEvent } from "../core/governed";
import type { Env } from "../env";
import { logWarn } from "../lib/log";
import { grantHolder, listGrantHolderPage } from "./grant-holders";
import { AUTHORIZATION_CODE_TTL_SECONDS, grantUserId } from "./servers";
import { displayClientName } from "./client-display-name";

export interface ConnectedGrant {
  grantId: string;
  /** The member's subject (the `userId` of audit records and whoami). */
  userId: string;
  userName: string;
  clientId: string;
  /** The client's registered name; null when it has none or could not be looked up. */
  clientName: string | null;
  scopes: string[];
  createdAt: string;
  /** When the grant stops working unless renewed; null only if the library recorded no expiry at all. */
  expiresAt: string | null;
  /** What `expiresAt` is: see `grantLifetime`. */
  expiry: GrantExpiry;
}

/**
 * What ends a grant. The library gives a grant an expiry only when its authorization code is exchanged: the
 * refresh token's (30 days, only with offline_access) or, with no refresh token, the access token's (1 hour,
 * after which the client must ask the member again). Before the exchange the stored grant has no expiry, yet
 * it lapses with its code after 10 minutes; showing that as "no expiry" was wrong.
 */
export type GrantExpiry = "refresh-token" | "access-token" | "unredeemed-code";

const isoSeconds = (seconds: number | undefined) =>
  seconds === undefined ? null : new Date(seconds * 1000).toISOString();

export function grantLifetime(grant: Pick<GrantSummary, "createdAt" | "expiresAt" | "scope">): {
  expiresAt: string | null;
  expiry: GrantExpiry;
} {
  if (grant.expiresAt === undefined)
    return { expiresAt: isoSeconds(grant.createdAt + AUTHORIZATION_CODE_TTL_SECONDS), expiry: "unredeemed-code" };
  return {
    expiresAt: isoSeconds(grant.expiresAt),
    expiry: grant.scope.includes("offline_access") ? "refresh-token" : "access-token",
  };
}

/** Who revokes: from a verified session or token. `clientId` is the console's id or the REST client. */
export interface GrantAdministrator {
  organizationId: string;
  userId: string;
  clientId: string;
}

function belongsTo(grant: GrantSummary, organizationId: string): boolean {
  const metadata = (grant.metadata ?? {}) as { organizationId?: unknown };
  return metadata.organizationId === organizationId;
}

async function grantsOf(oauth: OAuthHelpers, userId: string): Promise<GrantSummary[]> {
  const grants: GrantSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await oauth.listUserGrants(userId, cursor ? { cursor } : {});
    grants.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return grants;
}

async function clientNames(oauth: OAuthHelpers, clientIds: Iterable<string>): Promise<Map<string, string | null>> {
  const names = new Map<string, string | null>();
  await Promise.all(
    [...new Set(clientIds)].map(async (clientId) => {
      try {
        // Self-chosen names: bidi and control characters neutralised before any page or API answer shows them.
        names.set(clientId, displayClientName((await oauth.lookupClient(clientId))?.clientName) ?? null);
      } catch (error) {
        // A Client ID Metadata Document that cannot be fetched right now: show the id only.
        logWarn("client lookup failed", { error });
        names.set(clientId, null);
      }
    }),
  );
  return names;
}

/** How many members' grants one listing reads (one grant list each): a page, whatever the organization's size. */
export const MEMBERS_PER_PAGE = 100;

/** What a page cursor looks like: KV's own, passed through as given (printable ASCII, at most 1024 characters). */
export function isGrantPageCursor(value: string): boolean {
  return /^[\x21-\x7e]{1,1024}$/.test(value);
}

/** One page of connected grants and where the next starts (null: this was the last). */
export interface ConnectedGrantPage {
  grants: ConnectedGrant[];
  nextCursor: string | null;
}

/**
 * Live grants of up to MEMBERS_PER_PAGE members of the organization (in member order, from `cursor`, the previous
 * page's nextCursor), newest first within the page.
 */
export async function listConnectedGrants(
  env: Env,
  oauth: OAuthHelpers,
  organizationId: string,
  cursor?: string,
): Promise<ConnectedGrantPage> {
  const page = await listGrantHolderPage(env, organizationId, {
    limit: MEMBERS_PER_PAGE,
    ...(cursor ? { cursor } : {}),
  });
  const perHolder = await Promise.all(
    page.holders.map(async (holder) => ({
      holder,
      grants: (await grantsOf(oauth, grantUserId(organizationId, holder.subject))).filter((g) =>
        belongsTo(g, organizationId),
      ),
    })),
  );
  const names = await clientNames(
    oauth,
    perHolder.flatMap(({ grants }) => grants.map((g) => g.clientId)),
  );
  const grants = perHolder
    .flatMap(({ holder, grants }) =>
      grants.map((grant) => ({
        grantId: grant.id,
        userId: holder.subject,
        userName: holder.name,
        clientId: grant.clientId,
        clientName: names.get(grant.clientId) ?? null,
        scopes: [...grant.scope],
        createdAt: isoSeconds(grant.createdAt) ?? "",
        ...grantLifetime(grant),
      })),
    )
    .sort((a, b) =>
      a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.grantId.localeCompare(b.grantId),
    );
  return { grants, nextCursor: page.cursor };
}

export type RevokeGrantResult =
  | { ok: true; grant: ConnectedGrant }
  | { ok: false; status: 400 | 404; code: string; message: string };

const GRANT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Revokes one grant of a member of the administrator's organization: the grant and its access and refresh
 * tokens stop working at once. Records one `revoke` audit event (who revoked, the grant's client, whose grant), with
 * `correlationId` when the revocation runs inside a governed request (the console's).
 */
export async function revokeConnectedGrant(
  env: Env,
  oauth: OAuthHelpers,
  admin: GrantAdministrator,
  memberId: string,
  grantId: string,
  correlationId?: string,
): Promise<RevokeGrantResult> {
  const started = Date.now();
  if (!memberId || memberId.length > 300 || !GRANT_ID.test(grantId)) {
    return {
      ok: false,
      status: 400,
      code: "invalid_request",
      message: "Name the grant by the userId and grantId that GET /api/v1/clients lists.",
    };
  }
  const userId = grantUserId(admin.organizationId, memberId);
  const grant = (await grantsOf(oauth, userId)).find((g) => g.id === grantId && belongsTo(g, admin.organizationId));
  if (!grant)
    return {
      ok: false,
      status: 404,
      code: "unknown_grant",
      message: `Member "${memberId}" of your organization has no grant ${grantId}; it may already be revoked.`,
    };
  await oauth.revokeGrant(grant.id, userId);
  const holder = await grantHolder(env, admin.organizationId, memberId);
  const names = await clientNames(oauth, [grant.clientId]);
  const revoked: ConnectedGrant = {
    grantId: grant.id,
    userId: memberId,
    userName: holder?.name ?? memberId,
    clientId: grant.clientId,
    clientName: names.get(grant.clientId) ?? null,
    scopes: [...grant.scope],
    createdAt: isoSeconds(grant.createdAt) ?? "",
    ...grantLifetime(grant),
  };
  await recordEvent(auditSinkFor(env), {
    caller: { organizationId: admin.organizationId, userId: admin.userId, clientId: grant.clientId },
    target: "revoke",
    startedMs: started,
    ...(correlationId ? { correlationId } : {}),
    reason: `grant ${grant.id} of ${memberId} revoked by an administrator (${admin.clientId === CONSOLE_CLIENT_ID ? "admin console" : "REST API"})`,
  });
  return { ok: true, grant: revoked };
}

/** The client id recorded for actions taken in the admin console (it has no OAuth client of its own). */
export const CONSOLE_CLIENT_ID = "admin-console";
