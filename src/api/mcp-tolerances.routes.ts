/**
 * GET /api/v1/mcp/tolerances: the deviations of real MCP clients that /mcp tolerates (the one table,
 * src/mcp/compat/tolerances.ts) and how often each was tolerated for this organization, per client and request
 * kind, so an administrator sees which clients still need a rule before it is dropped.
 */
import { toleratedCounts } from "../mcp/compat/report";
import { TOLERANCES } from "../mcp/compat/tolerances";
import type { ApiRoute } from "./router";

export const mcpToleranceRoutes: ApiRoute[] = [
  {
    method: "GET",
    path: "/api/v1/mcp/tolerances",
    requiredScopes: ["audit.read"],
    async handle({ env, principal }) {
      const counts = await toleratedCounts(env, principal.organizationId);
      return Response.json({ tolerances: TOLERANCES, counts }, { headers: { "Cache-Control": "no-store" } });
    },
  },
];
