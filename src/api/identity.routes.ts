import { getPolicy } from "../policy/load";
import type { ApiRoute } from "./router";

export const identityRoutes: ApiRoute[] = [
  {
    method: "GET",
    path: "/api/v1/whoami",
    requiredScopes: [],
    async handle({ principal }) {
      const org = getPolicy().organizations[principal.organizationId];
      return Response.json({
        organization: { id: principal.organizationId, name: org?.name ?? principal.organizationId },
        userId: principal.userId,
        clientId: principal.clientId,
        role: principal.role,
        scopes: principal.scopes,
      });
    },
  },
];
