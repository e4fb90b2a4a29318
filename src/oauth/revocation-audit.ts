/**
 * Audits token revocation (RFC 7009) at the token endpoint. The endpoint answers 200 whether or not
 * anything was revoked (so callers cannot probe tokens), so the event is derived from what changed:
 * the grant or the access token is looked up before the request and again after a successful answer,
 * and only an actual revocation leaves a record, attributed from the stored grant, never from the request.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../env";
import type { GrantProps } from "./grant-props";
import type { OAuthServers } from "./servers";
import { OAUTH_PATHS } from "./servers";
import type { AuditRecord } from "../audit/record";
import { newCorrelationId } from "../core/correlation";
import { recordAudit } from "../audit/sink";

interface Holder {
  organizationId: string;
  userId: string;
  clientId: string;
}

async function findGrant(oauth: OAuthHelpers, userId: string, grantId: string) {
  let cursor: string | undefined;
  do {
    const page = await oauth.listUserGrants(userId, cursor ? { cursor } : {});
    const grant = page.items.find((item) => item.id === grantId);
    if (grant) return grant;
    cursor = page.cursor;
  } while (cursor);
  return undefined;
}

async function liveAccessToken(servers: OAuthServers, env: Env, token: string): Promise<Holder | undefined> {
  for (const resource of [servers.mcpResource, servers.apiResource]) {
    const validated = await servers.authorizationServer.validateToken<GrantProps>(resource, token, env);
    if (validated)
      return {
        organizationId: validated.props.organizationId,
        userId: validated.props.userId,
        clientId: validated.clientId,
      };
  }
  return undefined;
}

function isRevocationForm(form: FormData): boolean {
  return !form.get("grant_type") && typeof form.get("token") === "string";
}

/** Serves a token-endpoint request with `forward`, recording a `revoke` audit event when it revoked something. */
export async function withRevocationAudit(
  request: Request,
  env: Env,
  servers: OAuthServers,
  forward: (request: Request) => Promise<Response>,
): Promise<Response> {
  const path = new URL(request.url).pathname;
  if (
    request.method !== "POST" ||
    path !== OAUTH_PATHS.token ||
    !(request.headers.get("content-type") ?? "").includes("application/x-www-form-urlencoded")
  ) {
    return forward(request);
  }
  let form: FormData;
  try {
    form = await request.clone().formData();
  } catch {
    return forward(request);
  }
  if (!isRevocationForm(form)) return forward(request);
  const token = String(form.get("token"));
  const [userId, grantId, secret, ...rest] = token.split(":");
  if (!userId || !grantId || !secret || rest.length > 0) return forward(request);

  const started = Date.now();
  const oauth = servers.authorizationServer.getOAuthApi(env);
  const grantBefore = await findGrant(oauth, userId, grantId);
  const accessBefore = grantBefore ? await liveAccessToken(servers, env, token) : undefined;
  const response = await forward(request);
  if (!grantBefore || !response.ok) return response;

  let reason: string | undefined;
  if (!(await findGrant(oauth, userId, grantId))) reason = "grant revoked with its tokens (refresh token revocation)";
  else if (accessBefore && !(await liveAccessToken(servers, env, token))) reason = "access token revoked";
  if (!reason) return response;

  const metadata = (grantBefore.metadata ?? {}) as { organizationId?: unknown; subject?: unknown };
  const holder: Holder = accessBefore ?? {
    organizationId: typeof metadata.organizationId === "string" ? metadata.organizationId : "",
    userId: typeof metadata.subject === "string" ? metadata.subject : userId,
    clientId: grantBefore.clientId,
  };
  const record: AuditRecord = {
    correlationId: newCorrelationId(),
    time: new Date(started).toISOString(),
    organizationId: holder.organizationId,
    userId: holder.userId,
    clientId: holder.clientId,
    kind: "oauth",
    target: "revoke",
    argumentsDigest: "",
    durationMs: Date.now() - started,
    outcome: "ok",
    reason,
  };
  await recordAudit(env, record);
  return response;
}
