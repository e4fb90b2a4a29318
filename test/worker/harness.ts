/**
 * Handler-level harness: calls the protected handlers (/mcp and the REST API) the way the OAuth resource server
 * calls them once it has verified a bearer token, so that tests whose subject is not OAuth skip the sign-in,
 * consent and token dance (about 30 ms and five Worker round trips per token).
 *
 * What the resource server does, and what this does instead:
 *  - it validates the token and sets `ctx.props` (the grant's GrantProps) and `ctx.auth` (audience, scopes,
 *    client, subject, expiry) on the request's ExecutionContext: here a Verified principal carries both, built
 *    from the same policy the consent step reads (a dev user's organization and role, the scopes the role may
 *    grant for the resource), and each call gets a fresh ExecutionContext with them;
 *  - it leaves the Authorization header on the request: here it carries a placeholder that is no valid token,
 *    so a handler that tried to use it would fail;
 *  - it routes only the resource URL and its descendants to the handler: here a path outside the resource
 *    throws. `/chat` is served by the REST resource as `/api/chat` (src/index.ts rewrites it): say that path.
 * What stays outside on purpose: src/index.ts's Origin/Host guard and 401 bodies, the library's CORS headers,
 * token audiences, revocation and expiry. Tests of those go through SELF with real tokens (helpers.ts).
 * The handlers read no stored grant state today (no revocation or expiry look-up of their own): if one starts
 * to, give the harness a real grant for it instead of skipping the check.
 */
import type { OAuthResourceAuth } from "@cloudflare/workers-oauth-provider";
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { SELF } from "./self";
import { apiResourceHandler } from "../../src/api";
import type { Env } from "../../src/env";
import { mcpResourceHandler } from "../../src/mcp/http";
import type { GrantProps } from "../../src/oauth/grant-props";
import { ACCESS_TOKEN_TTL_SECONDS, grantUserId } from "../../src/oauth/servers";
import { getPolicy, grantableScopes, type ProtectedResourceName } from "../../src/policy/load";

const workerEnv = env as unknown as Env;

/** What the resource server hands the handler after verifying a token: ctx.props and ctx.auth. */
export interface Verified {
  readonly verified: true;
  readonly resource: ProtectedResourceName;
  readonly props: GrantProps;
  readonly auth: OAuthResourceAuth;
}

/** Either a bearer token (the request goes through SELF, OAuth included) or a verified principal (straight to the handler). */
export type Caller = string | Verified;

export function isVerified(caller: Caller): caller is Verified {
  return typeof caller !== "string";
}

/** Stands where the bearer token would be; it is not a token this server could ever accept. */
const PLACEHOLDER_TOKEN = "harness-verified-principal-not-a-token";

export interface PrincipalOptions {
  /** A user of policies/dev-users.json (default "ana"). */
  user?: string;
  /** The scopes the client asks for, space separated; omitted, the resource's baseline (as /authorize does). */
  scope?: string;
  /** The scopes the member ticks on the consent page (they replace the requested ones); default: every requested one. */
  approve?: string[];
  /** The client the grant belongs to; default: a new one, as obtainTokens registers a new client. */
  clientId?: string;
  /**
   * A member of this organization instead of the user's own (an organization created at runtime through the
   * operator's API: development users belong to the seeded ones). The subject and role stay the user's.
   */
  organizationId?: string;
}

/**
 * The principal a grant of `user` for `resource` would carry. Granted scopes follow src/auth/authorize.ts: what
 * the member ticked (by default every requested scope, or the baseline when none is requested), kept only where
 * the role may grant it for this resource. A scope the catalogue does not define throws, as /authorize refuses it.
 */
export function verifiedPrincipal(resource: ProtectedResourceName, options: PrincipalOptions = {}): Verified {
  const policy = getPolicy();
  const subject = options.user ?? "ana";
  const user = Object.hasOwn(policy.devUsers, subject) ? policy.devUsers[subject] : undefined;
  if (!user) throw new Error(`harness: no development user "${subject}" in policies/dev-users.json`);
  const requested =
    options.scope !== undefined && options.scope.trim() !== ""
      ? options.scope.trim().split(/\s+/)
      : [...policy.baseline[resource]];
  const unknown = requested.filter((scope) => !policy.scopeNames.includes(scope));
  if (unknown.length > 0) throw new Error(`harness: /authorize would refuse the unknown scope(s) ${unknown.join(" ")}`);
  const grantable = grantableScopes(policy, user.role).filter((scope) =>
    policy.scopes[scope]?.resources.includes(resource),
  );
  const scope = [...new Set(options.approve ?? requested)].filter((name) => grantable.includes(name));
  const origin = new URL(workerEnv.PUBLIC_URL).origin;
  const clientId = options.clientId ?? `harness-${crypto.randomUUID().slice(0, 8)}`;
  return {
    verified: true,
    resource,
    props: {
      organizationId: options.organizationId ?? user.organization,
      userId: subject,
      role: user.role,
      name: user.name,
    },
    auth: {
      token: PLACEHOLDER_TOKEN,
      audience: `${origin}/${resource}`,
      scope,
      clientId,
      userId: grantUserId(options.organizationId ?? user.organization, subject),
      expiresAt: Math.floor(Date.now() / 1000) + ACCESS_TOKEN_TTL_SECONDS,
    },
  };
}

/** A principal for /mcp (shorthand of verifiedPrincipal). */
export function mcpPrincipal(
  user = "ana",
  scope?: string,
  options: Omit<PrincipalOptions, "user" | "scope"> = {},
): Verified {
  return verifiedPrincipal("mcp", { ...options, user, ...(scope === undefined ? {} : { scope }) });
}

/** A principal for the REST API and /chat (shorthand of verifiedPrincipal). */
export function restPrincipal(
  user = "ana",
  scope?: string,
  options: Omit<PrincipalOptions, "user" | "scope"> = {},
): Verified {
  return verifiedPrincipal("api", { ...options, user, ...(scope === undefined ? {} : { scope }) });
}

const handlers = { mcp: mcpResourceHandler, api: apiResourceHandler } as const;

function insideResource(url: URL, resource: ProtectedResourceName): boolean {
  return url.pathname === `/${resource}` || url.pathname.startsWith(`/${resource}/`);
}

/**
 * Calls the resource's handler with `principal` as the verified caller. A JSON answer is returned after the
 * request's waitUntil work has settled (so an audit record written there can be read next); a stream (SSE) is
 * returned at once, as a client would see it.
 */
export async function callHandler(principal: Verified, input: string | URL, init: RequestInit = {}): Promise<Response> {
  const url = new URL(input, workerEnv.PUBLIC_URL);
  if (!insideResource(url, principal.resource)) {
    throw new Error(
      `harness: ${url.pathname} is not served by the ${principal.resource} resource (for /chat, call /api/chat)`,
    );
  }
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${PLACEHOLDER_TOKEN}`);
  const request = new Request(url, { ...init, headers });
  const ctx = createExecutionContext() as ExecutionContext & { props: GrantProps; auth: OAuthResourceAuth };
  ctx.props = { ...principal.props, ...(principal.props.projects ? { projects: [...principal.props.projects] } : {}) };
  ctx.auth = { ...principal.auth, scope: [...principal.auth.scope] };
  const response = await handlers[principal.resource].fetch(request, workerEnv, ctx as never);
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) await waitOnExecutionContext(ctx);
  return response;
}

/**
 * One request as `caller`: a bearer token goes through the Worker's front door (SELF: Origin guard, OAuth,
 * then the handler); a verified principal goes straight to the handler.
 */
export function fetchAs(caller: Caller, input: string | URL, init: RequestInit = {}): Promise<Response> {
  if (isVerified(caller)) return callHandler(caller, input, init);
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${caller}`);
  return SELF.fetch(new URL(input, workerEnv.PUBLIC_URL).toString(), { ...init, headers });
}
