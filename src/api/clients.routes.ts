/**
 * Connected clients over REST (scope clients.admin): the live OAuth grants of the organization's members and
 * revoking one (its access and refresh tokens stop working at once). The organization comes from the token.
 *
 *   GET    /api/v1/clients[?cursor=]                 clients.admin   { organizationId, grants: [...], nextCursor }
 *   DELETE /api/v1/clients/grants/:userId/:grantId   clients.admin   { grant }   (one `revoke` audit event)
 */
import { Failure, kindForStatus } from "../core/failure";
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../env";
import { isGrantPageCursor, listConnectedGrants, revokeConnectedGrant } from "../oauth/connected-clients";
import { json, unpagedLimit } from "./contracts-http";
import type { ApiRoute } from "./router";

const unknownCursor = () =>
  new Failure(
    "invalid_input",
    "Invalid query parameters: cursor is not one this API gave (use the nextCursor of the previous page as it is), or leave it out to start again.",
    {},
    "invalid_query",
  );

/** The page to start from: a previous answer's nextCursor (opaque; printable, at most 1024 characters). */
function cursorQuery(url: URL): string | undefined {
  const cursor = url.searchParams.get("cursor");
  if (cursor === null || cursor === "") return undefined;
  if (!isGrantPageCursor(cursor)) throw unknownCursor();
  return cursor;
}

/** The routes need the authorization server's helpers; the composition root supplies them (no import cycle). */
export function connectedClientRoutes(oauthFor: (env: Env) => OAuthHelpers): ApiRoute[] {
  return [
    {
      method: "GET",
      path: "/api/v1/clients",
      requiredScopes: ["clients.admin"],
      async handle({ request, env, principal }) {
        const url = new URL(request.url);
        const limit = unpagedLimit(url);
        const cursor = cursorQuery(url);
        const page = await listConnectedGrants(env, oauthFor(env), principal.organizationId, cursor).catch(
          (error: unknown) => {
            // KV refuses a cursor it did not give; anything else is the store's own failure.
            if (cursor !== undefined) throw unknownCursor();
            throw error;
          },
        );
        return json({
          organizationId: principal.organizationId,
          grants: limit.limit === null ? page.grants : page.grants.slice(0, limit.limit),
          nextCursor: page.nextCursor,
        });
      },
    },
    {
      method: "DELETE",
      path: "/api/v1/clients/grants/:userId/:grantId",
      requiredScopes: ["clients.admin"],
      async handle({ env, principal, params }) {
        const result = await revokeConnectedGrant(
          env,
          oauthFor(env),
          { organizationId: principal.organizationId, userId: principal.userId, clientId: principal.clientId },
          params.userId ?? "",
          params.grantId ?? "",
        );
        if (!result.ok) throw new Failure(kindForStatus(result.status), result.message, {}, result.code);
        return json({ grant: result.grant, revoked: true });
      },
    },
  ];
}
