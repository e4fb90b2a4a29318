/**
 * GET /api/v1/mcp/tolerances: the deviations of real MCP clients that /mcp tolerates (the one table,
 * src/mcp/compat/tolerances.ts) and how often each was tolerated for this organization, per client and request
 * kind, so an administrator sees which clients still need a rule before it is dropped. Read from the
 * organization's ToleranceCounter over its RPC binding: the REST API imports nothing of the MCP front.
 */
import type { ApiRoute } from "./router";

export const mcpToleranceRoutes: ApiRoute[] = [
  {
    method: "GET",
    path: "/api/v1/mcp/tolerances",
    requiredScopes: ["audit.read"],
    async handle({ env, principal }) {
      const counter = env.TOLERANCE_COUNTER.get(env.TOLERANCE_COUNTER.idFromName(principal.organizationId));
      const { tolerances, counts } = await counter.report();
      return Response.json({ tolerances, counts }, { headers: { "Cache-Control": "no-store" } });
    },
  },
];
