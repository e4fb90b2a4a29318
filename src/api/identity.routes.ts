import { rateLimiterFor } from "../ratelimit/limiter";
import { organizationName } from "../directory/names";
import { REST_RATE_LIMIT_TARGET } from "../ratelimit/keys";
import type { ApiRoute } from "./router";

export const identityRoutes: ApiRoute[] = [
  {
    method: "GET",
    path: "/api/v1/whoami",
    requiredScopes: [],
    async handle({ principal, env }) {
      const name = await organizationName(env, principal.organizationId);
      const [rest] = await rateLimiterFor(env).usage(principal, [REST_RATE_LIMIT_TARGET]);
      return Response.json({
        organization: { id: principal.organizationId, name: name ?? principal.organizationId },
        userId: principal.userId,
        clientId: principal.clientId,
        role: principal.role,
        scopes: principal.scopes,
        ...(principal.projects ? { projects: principal.projects } : {}),
        restQuota: rest
          ? {
              limit: rest.limit,
              windowSeconds: rest.windowSeconds,
              remaining: rest.remaining,
              resetsInSeconds: rest.resetsInSeconds,
            }
          : null,
      });
    },
  },
];
