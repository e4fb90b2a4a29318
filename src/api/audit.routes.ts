import { Failure } from "../core/failure";
import {
  AuditQueryError,
  auditFilterFields,
  auditQueryInput,
  auditTrailSummary,
  listAuditEvents,
} from "../audit/query";
import { humaniseIssues } from "../lib/humanise";
import { limitQuery } from "./contracts-http";
import type { ApiRoute } from "./router";

const KNOWN_PARAMETERS = Object.keys(auditFilterFields);

/** Query parameters to the tool's input shape; undefined plus a message when they cannot be read. */
function readParameters(url: URL): { input?: Record<string, unknown>; problem?: string } {
  const input: Record<string, unknown> = {};
  for (const [name, value] of url.searchParams) {
    if (!KNOWN_PARAMETERS.includes(name))
      return { problem: `Unknown query parameter "${name}". Known parameters: ${KNOWN_PARAMETERS.join(", ")}.` };
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
      // `limit` is checked as on every list route (it throws on a bad one); the cursor of this list is `cursor`.
      limitQuery(new URL(request.url));
      const { input, problem } = readParameters(new URL(request.url));
      if (!input) throw new Failure("invalid_input", problem ?? "Unreadable query.", {}, "invalid_request");
      const parsed = auditQueryInput.safeParse(input);
      if (!parsed.success)
        throw new Failure(
          "invalid_input",
          `Invalid query: ${humaniseIssues(parsed.error, { where: "query" })}.`,
          {},
          "invalid_request",
        );
      try {
        const page = await listAuditEvents(env, principal.organizationId, parsed.data);
        return Response.json(page, { headers: { "Cache-Control": "no-store" } });
      } catch (error) {
        if (error instanceof AuditQueryError) {
          throw error.outcome === "rejected-by-policy"
            ? new Failure("forbidden", error.message, {}, "forbidden")
            : new Failure("invalid_input", error.message, {}, "invalid_request");
        }
        throw error;
      }
    },
  },
  {
    method: "GET",
    path: "/api/v1/audit/trail",
    requiredScopes: ["audit.read"],
    async handle({ env, principal }) {
      const trail = await auditTrailSummary(env, principal.organizationId);
      return Response.json(
        { organizationId: principal.organizationId, trail },
        { headers: { "Cache-Control": "no-store" } },
      );
    },
  },
];
