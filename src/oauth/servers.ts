/**
 * The authorization server and the two protected resources it issues tokens for:
 *   `${PUBLIC_URL}/mcp`  MCP clients (Claude, ChatGPT, the Inspector, any SDK client)
 *   `${PUBLIC_URL}/api`  the REST API (/api/v1/...) and /chat, for CI and scripts
 * A token is bound to exactly one of them; each resource refuses the other's tokens.
 * Built once per isolate and PUBLIC_URL (issuer and resources are fixed at construction).
 */
import {
  GrantType,
  OAuthAuthorizationServer,
  OAuthResourceServer,
  type OAuthResourceHandler,
} from "@cloudflare/workers-oauth-provider";
import { looksLikeCiKey } from "./cikeys";
import { validateCiKey } from "./ci-key-validation";
import type { Env } from "../env";
import { getPolicy } from "../policy/load";
import { logWarn } from "../lib/log";
import { registrationRefusal } from "./registration-policy";
import { describeRefusedToken, invalidToken } from "./token-refusal";
import type { GrantProps } from "./grant-props";

/** Every access token lasts an hour; a client keeps access longer only with a refresh token. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** A refresh token (granted only with offline_access) lasts 30 days; the library's default, stated here so pages can say it. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
/**
 * An authorization code must be redeemed within 10 minutes (fixed by the OAuth library). Until then its grant
 * has no expiry of its own: the library sets one at the code exchange (the refresh token's, or the access token's).
 */
export const AUTHORIZATION_CODE_TTL_SECONDS = 600;

export const OAUTH_PATHS = {
  authorize: "/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
} as const;

export interface OAuthServers {
  issuer: string;
  mcpResource: string;
  apiResource: string;
  authorizationServer: OAuthAuthorizationServer<Env>;
  mcp: OAuthResourceServer<Env, GrantProps>;
  api: OAuthResourceServer<Env, GrantProps>;
}

export function publicOrigin(env: Env): string {
  const url = new URL(env.PUBLIC_URL);
  return url.origin;
}

let cachedAuthorizationServer: { key: string; server: OAuthAuthorizationServer<Env> } | undefined;

/**
 * The authorization server of this deployment, built once per issuer. It needs no resource handler, so a REST
 * route that manages grants (connected clients) reaches it without importing the /mcp front.
 */
export function getAuthorizationServer(env: Env): OAuthAuthorizationServer<Env> {
  const issuer = publicOrigin(env);
  if (cachedAuthorizationServer?.key === issuer) return cachedAuthorizationServer.server;
  const policy = getPolicy();
  const mcpResource = `${issuer}/mcp`;
  const apiResource = `${issuer}/api`;
  const server = new OAuthAuthorizationServer<Env>({
    issuer,
    resources: [mcpResource, apiResource],
    // Clients that omit `resource` (older MCP clients) get an MCP token.
    defaultResource: mcpResource,
    authorizeEndpoint: OAUTH_PATHS.authorize,
    tokenEndpoint: OAUTH_PATHS.token,
    clientRegistrationEndpoint: OAUTH_PATHS.register,
    clientIdMetadataDocumentEnabled: true,
    // Bounds and exact, canonical redirect URIs for every dynamic registration (registration-policy.ts). The
    // route checks first for clearer errors (registration-guard.ts); this hook holds even if routing changes.
    clientRegistrationCallback: ({ clientMetadata }) => {
      const refusal = registrationRefusal(clientMetadata);
      return refusal ? { ...refusal, status: 400 } : undefined;
    },
    scopesSupported: [...policy.scopeNames],
    accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTTL: REFRESH_TOKEN_TTL_SECONDS,
    // A refresh token only for grants that include offline_access, as the scope says. It also keeps
    // step-up working: a client holding a refresh token tries it first, and a refresh can never widen scopes.
    tokenExchangeCallback: ({ grantType, scope }) =>
      grantType === GrantType.AUTHORIZATION_CODE && !scope.includes("offline_access")
        ? { refreshTokenTTL: 0 }
        : undefined,
    onError({ code, status, internal }) {
      // The category and reason name the failed check; never the token, code or body.
      logWarn("oauth error", { code, status, category: internal.category, reason: internal.reason });
    },
  });
  cachedAuthorizationServer = { key: issuer, server };
  return server;
}

let cached: { key: string; servers: OAuthServers } | undefined;

export function getOAuthServers(
  env: Env,
  handlers: { mcp: OAuthResourceHandler<Env, GrantProps>; api: OAuthResourceHandler<Env, GrantProps> },
): OAuthServers {
  const issuer = publicOrigin(env);
  if (cached?.key === issuer) return cached.servers;
  const policy = getPolicy();
  const mcpResource = `${issuer}/mcp`;
  const apiResource = `${issuer}/api`;
  const authorizationServer = getAuthorizationServer(env);
  const names = { mcpResource, apiResource };
  // A refused token gets an OAuthError naming why (the other resource's token, a CI key on /mcp): the library
  // answers it with its usual 401 challenge, and unauthorized-body.ts turns the description into the body.
  const refuse = async (env: Env, resource: string, token: string): Promise<never> => {
    throw invalidToken(await describeRefusedToken(authorizationServer.getOAuthApi(env), names, resource, token));
  };
  const local = (env: Env) => async (resource: string, token: string) =>
    (await authorizationServer.validateToken(resource, token, env)) ?? refuse(env, resource, token);
  const servers: OAuthServers = {
    issuer,
    mcpResource,
    apiResource,
    authorizationServer,
    mcp: new OAuthResourceServer<Env, GrantProps>({
      resourceMetadata: { resource: mcpResource, authorization_servers: [issuer], resource_name: "Arbiter MCP server" },
      requiredScopes: [...policy.baseline.mcp],
      validateToken: local,
      handler: handlers.mcp,
    }),
    api: new OAuthResourceServer<Env, GrantProps>({
      resourceMetadata: { resource: apiResource, authorization_servers: [issuer], resource_name: "Arbiter REST API" },
      requiredScopes: [...policy.baseline.api],
      // The REST resource also accepts CI keys (recognised by their prefix); /mcp never does.
      validateToken: (env) => async (resource, token) =>
        looksLikeCiKey(token)
          ? ((await validateCiKey(env, token, apiResource)) ?? refuse(env, resource, token))
          : local(env)(resource, token),
      handler: handlers.api,
    }),
  };
  cached = { key: issuer, servers };
  return servers;
}

/**
 * The OAuth library's user id of a member's grants: `<organization>--<subject, percent-encoded>`. It must not contain
 * ":" (the token format is userId:grantId:secret). The library lists, replaces and revokes grants by this id alone, so
 * two members must never share one: organization ids created now hold no "--" and do not end in "-"
 * (NEW_ORGANIZATION_ID, src/directory/settings.ts), and grantUserIdIsAmbiguous names the ids that could still be read two ways.
 */
export function grantUserId(organizationId: string, subject: string): string {
  return `${organizationId}--${encodeURIComponent(subject)}`;
}

/**
 * Whether `grantUserId(organizationId, subject)` could also be another organization's member's id: it holds "--"
 * (overlapping counted) anywhere but at its one separator. That takes an organization id from before ids were
 * checked for it ("a--b", "a-"), or a subject that starts with "-" or holds "--". Such grants are never replaced or
 * revoked by the id alone: each one's recorded organization is checked first (grantInOrganization).
 */
export function grantUserIdIsAmbiguous(organizationId: string, subject: string): boolean {
  const userId = grantUserId(organizationId, subject);
  let separators = 0;
  for (let at = userId.indexOf("--"); at >= 0; at = userId.indexOf("--", at + 1)) separators++;
  return separators !== 1;
}

/**
 * Whether a grant listed under a member's user id was made in `organizationId`: the organization recorded in its
 * metadata at /authorize (every grant it makes carries it). A grant without one counts as the organization's, so that
 * a revocation never skips it.
 */
export function grantInOrganization(grant: { metadata?: unknown }, organizationId: string): boolean {
  const recorded = (grant.metadata as { organizationId?: unknown } | null | undefined)?.organizationId;
  return recorded === undefined || recorded === organizationId;
}
