/**
 * The REST API protected resource (`${PUBLIC_URL}/api`): /api/v1/... and /chat (served here as /api/chat).
 * Each route declares its scopes; the router checks them (403 step-up challenge) before the handler runs.
 */
import { insufficientScope, type OAuthResourceContext } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../env";
import { missingScopes } from "../mcp/catalog";
import type { Principal } from "../mcp/context";
import { principalFromGrant } from "../mcp/http";
import type { GrantProps } from "../oauth/servers";
import { newCorrelationId } from "../audit/record";
import { apiError } from "./errors";
import { auditRouteCall } from "./route-audit";
import { logError } from "../web/log";

export interface ApiRequest {
  request: Request;
  env: Env;
  principal: Principal;
  params: Record<string, string>;
  ctx: ExecutionContext;
  /** The id of this call's audit record; put it in error messages so an operator can find the record. */
  correlationId: string;
}

export interface ApiRoute {
  method: string;
  /** Path pattern with `:name` segments, e.g. `/api/v1/projects/:project`. */
  path: string;
  requiredScopes: readonly string[];
  handle(input: ApiRequest): Promise<Response>;
}

function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? "";
    const g = got[i] ?? "";
    if (w.startsWith(":")) {
      if (!g) return undefined;
      try {
        params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        return undefined;
      }
    } else if (w !== g) return undefined;
  }
  return params;
}

export function createApiHandler(routes: readonly ApiRoute[]) {
  return {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const { props, auth } = ctx as unknown as OAuthResourceContext<GrantProps>;
    const principal: Principal = { ...principalFromGrant(props, auth), ...(props.projects ? { projects: [...props.projects] } : {}) };
    const url = new URL(request.url);
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const started = Date.now();
    const correlationId = newCorrelationId();
    let target = `${request.method} (no route)`;
    let params: Record<string, string> = {};
    const dispatch = async (): Promise<Response> => {
      let pathMatched = false;
      for (const route of routes) {
        const matched = match(route.path, path);
        if (!matched) continue;
        pathMatched = true;
        if (route.method !== request.method) continue;
        target = `${route.method} ${route.path}`;
        params = matched;
        const missing = missingScopes(principal.scopes, route.requiredScopes);
        if (missing.length > 0) return insufficientScope(auth, [...new Set([...auth.scope, ...missing])], `This route needs the scope ${missing.join(" ")}`);
        return route.handle({ request, env, principal, params: matched, ctx, correlationId });
      }
      if (pathMatched) return apiError(405, "method_not_allowed", `${request.method} is not supported on ${path}.`);
      return apiError(404, "not_found", `No API route ${request.method} ${path}. See the README for the REST API.`);
    };
    let response: Response;
    try {
      response = await dispatch();
    } catch (error) {
      logError("route failed", { target, correlationId, error });
      response = apiError(500, "internal_error", "Arbiter hit an unexpected error. Try again; the operator can find it in the logs.", { correlationId });
    }
    await auditRouteCall({ correlationId, started, principal, target, params, url, response });
    return response;
  },
};
}
