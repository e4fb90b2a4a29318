import { AuditQueryError, auditFilterFields, auditQueryInput, listAuditEvents } from "../audit/query";
import { humaniseIssues } from "../lib/humanise";
import { limitQuery } from "./contracts-http";
import { apiError } from "./errors";
import type { ApiRoute } from "./router";

const KNOWN_PARAMETERS = Object.keys(auditFilterFields);

/** Query parameters to the tool's input shape; undefined plus a message when they cannot be read. */
function readParameters(url: URL): { input?: Record<string, unknown>; problem?: string } {
  const input: Record<string, unknown> = {};
  for (const [name, value] of url.searchParams) {
    if (!KNOWN_PARAMETERS.includes(name)) return { problem: `Unknown query parameter "${name}". Known parameters: ${KNOWN_PARAMETERS.join(", ")}.` };
    if (name in input) return { problem: `Query parameter "${name}" is given more than once; give it once.` };
    input[name] = name === "limit" && /^\d+$/.test(value) ? Number(value) : value;
  }
  return { input };
}

export const auditRoutes: ApiRoute[] = [
  {
    method: "GET",
    path: "/api/v1/audit/events",
    requiredScopes: ["audit.read"],
    async handle({ request, env, principal }) {
      // `limit` is checked as on every list route; the cursor of this list is `cursor`, not `before`.
      const limit = limitQuery(new URL(request.url));
      if ("response" in limit) return limit.response;
      const { input, problem } = readParameters(new URL(request.url));
      if (!input) return apiError(400, "invalid_request", problem ?? "Unreadable query.");
      const parsed = auditQueryInput.safeParse(input);
      if (!parsed.success) return apiError(400, "invalid_request", `Invalid query: ${humaniseIssues(parsed.error, { where: "query" })}.`);
      try {
        const page = await listAuditEvents(env, principal.organizationId, parsed.data);
        return Response.json(page, { headers: { "Cache-Control": "no-store" } });
      } catch (error) {
        if (error instanceof AuditQueryError) {
          return error.outcome === "rejected-by-policy" ? apiError(403, "forbidden", error.message) : apiError(400, "invalid_request", error.message);
        }
        throw error;
      }
    },
  },
];
