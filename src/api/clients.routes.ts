/**
 * Connected clients over REST (scope clients.admin): the live OAuth grants of the organization's members and
 * revoking one (its access and refresh tokens stop working at once). The organization comes from the token.
 *
 *   GET    /api/v1/clients                           clients.admin   { organizationId, grants: [...] }
 *   DELETE /api/v1/clients/grants/:userId/:grantId   clients.admin   { grant }   (one `revoke` audit event)
 */
import { Failure, kindForStatus } from "../core/failure";
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../env";
import { listConnectedGrants, revokeConnectedGrant } from "../oauth/connected-clients";
import { json, unpagedLimit } from "./contracts-http";
import type { ApiRoute } from "./router";

/** The routes need the authorization server's helpers; the composition root supplies them (no import cycle). */
export function connectedClientRoutes(oauthFor: (env: Env) => OAuthHelpers): ApiRoute[] {
  return [
    {
      method: "GET",
      path: "/api/v1/clients",
      requiredScopes: ["clients.admin"],
      async handle({ request, env, principal }) {
        const limit = unpagedLimit(new URL(request.url));
        const grants = await listConnectedGrants(env, oauthFor(env), principal.organizationId);
        return json({
          organizationId: principal.organizationId,
          grants: limit.limit === null ? grants : grants.slice(0, limit.limit),
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
