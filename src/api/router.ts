/**
 * The REST API protected resource (`${PUBLIC_URL}/api`): /api/v1/... and /chat (served here as /api/chat).
 * Every request, in this order: route match -> scope check (403 step-up challenge) -> rate limit per client
 * (429 with Retry-After, before the handler runs) -> handler. Each request leaves exactly one audit record,
 * whatever the answer, and carries its correlation id in `X-Correlation-Id`.
 */
import { insufficientScope, type OAuthResourceAuth, type OAuthResourceContext } from "@cloudflare/workers-oauth-provider";
import { outcomeForStatus } from "../audit/http-outcome";
import { auditRecordOf, newCorrelationId, type AuditSink } from "../audit/record";
import { auditSinkFor } from "../audit/sink";
import { CI_KEY_CLIENT_PREFIX, CI_KEY_SCOPES } from "../contracts/cikeys";
import type { Env } from "../env";
import { missingScopes } from "../mcp/catalog";
import type { Principal } from "../mcp/context";
import { principalFromGrant } from "../mcp/http";
import type { GrantProps } from "../oauth/servers";
import type { RateLimiter } from "../ratelimit/hook";
import { rateLimiterFor } from "../ratelimit/limiter";
import { logError } from "../web/log";
import { apiError, PROBLEM_CONTENT_TYPE, problemCode } from "./errors";

export interface ApiRequest {
  request: Request;
  env: Env;
  principal: Principal;
  params: Record<string, string>;
  ctx: ExecutionContext;
  /** Also in the audit record and the X-Correlation-Id header. */
  correlationId: string;
  /**
   * Adds a short, safe fact to the audit record's reason of a successful request (a count, a digest): never a
   * payload, a token or document text.
   */
  note(fact: string): void;
}

export interface ApiRoute {
  method: string;
  /** Path pattern with `:name` segments, e.g. `/api/v1/projects/:project`. */
  path: string;
  requiredScopes: readonly string[];
  handle(input: ApiRequest): Promise<Response>;
}

/** The rate-limit bucket all REST routes of one client share (policies/rate-limits.json `rest`). */
export const REST_RATE_LIMIT_TARGET = "rest";

export interface ApiHandlerOptions {
  rateLimiter?: (env: Env) => RateLimiter;
  audit?: (env: Env) => AuditSink;
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

/** The stable error code of one of our error answers, else the status. */
async function errorCodeOf(response: Response): Promise<string> {
  return (await problemCode(response))?.slice(0, 64) ?? `HTTP ${response.status}`;
}

/** What a caller lacking `missing` can do about it: CI keys come from an admin and never carry admin scopes. */
function scopeNextStep(principal: Principal, missing: readonly string[], scopes: string): string {
  if (!principal.clientId.startsWith(CI_KEY_CLIENT_PREFIX)) return `Ask for an access token with ${scopes} (request scope="${missing.join(" ")}" when authorizing) and retry.`;
  const keyCanCarry = missing.every((scope) => (CI_KEY_SCOPES as readonly string[]).includes(scope));
  return keyCanCarry ? `Ask your organization admin for a CI key with ${scopes} and retry.` : `CI keys cannot carry ${scopes}: use an OAuth access token with ${scopes}.`;
}

/**
 * 403 for a missing scope: the body in our one error shape, the step-up challenge exactly as the OAuth library
 * builds it (clients following RFC 6750 and the MCP authorization spec read the header, not the body).
 */
function scopeRefusal(auth: OAuthResourceAuth, principal: Principal, missing: readonly string[], correlationId: string): Response {
  const scopes = `${missing.length === 1 ? "the scope" : "the scopes"} ${missing.join(" ")}`;
  const challenge = insufficientScope(auth, [...new Set([...auth.scope, ...missing])], `This route needs ${scopes}`).headers.get("WWW-Authenticate") ?? "";
  const credential = principal.clientId.startsWith(CI_KEY_CLIENT_PREFIX) ? "CI key" : "access token";
  const message = `This route needs ${scopes}, which your ${credential} does not carry. ${scopeNextStep(principal, missing, scopes)}`;
  return apiError(403, "insufficient_scope", message, { correlationId, headers: { "WWW-Authenticate": challenge }, details: { missingScopes: [...missing] } });
}

/**
 * Every problem answer names its occurrence: the request's correlation id (also in X-Correlation-Id and the audit
 * record) as `correlationId` and as the RFC 9457 `instance`, so a person can quote it from the body alone.
 */
async function withOccurrence(response: Response, correlationId: string): Promise<Response> {
  if (!(response.headers.get("content-type") ?? "").startsWith(PROBLEM_CONTENT_TYPE)) return new Response(response.body, response);
  const problem = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  if (!problem || typeof problem !== "object") return new Response(null, response);
  const compatibility = problem.error && typeof problem.error === "object" ? { error: { ...(problem.error as object), correlationId } } : {};
  const body = { ...problem, instance: `urn:uuid:${correlationId}`, correlationId, ...compatibility };
  const headers = new Headers(response.headers);
  headers.delete("Content-Length");
  return new Response(JSON.stringify(body), { status: response.status, statusText: response.statusText, headers });
}

interface Handled {
  response: Response;
  target: string;
  params: Record<string, string>;
  reason: string;
}

export function createApiHandler(routes: readonly ApiRoute[], options: ApiHandlerOptions = {}) {
  const limiterFor = options.rateLimiter ?? ((env: Env) => rateLimiterFor(env));
  const auditFor = options.audit ?? auditSinkFor;

  async function dispatch(request: Request, env: Env, ctx: ExecutionContext, principal: Principal, correlationId: string): Promise<Handled> {
    const { auth } = ctx as unknown as OAuthResourceContext<GrantProps>;
    const path = new URL(request.url).pathname.replace(/\/+$/, "") || "/";
    let route: ApiRoute | undefined;
    let params: Record<string, string> = {};
    let pathMatched = false;
    for (const candidate of routes) {
      const found = match(candidate.path, path);
      if (!found) continue;
      pathMatched = true;
      if (candidate.method !== request.method) continue;
      route = candidate;
      params = found;
      break;
    }
    const target = route ? `${route.method} ${route.path}` : `${request.method} ${path.slice(0, 150)}`;

    if (route) {
      const missing = missingScopes(principal.scopes, route.requiredScopes);
      if (missing.length > 0) {
        const response = scopeRefusal(auth, principal, missing, correlationId);
        return { response, target, params, reason: `missing scope ${missing.join(" ")}` };
      }
    }

    const decision = await limiterFor(env).check({ organizationId: principal.organizationId, clientId: principal.clientId, target: REST_RATE_LIMIT_TARGET });
    if (!decision.allowed) {
      const storeDown = decision.cause === "store-unavailable";
      const message = storeDown
        ? `The rate limiter cannot read this client's quota right now and the REST API fails closed. Retry after ${decision.retryAfterSeconds} s.`
        : `Rate limit reached: the REST API allows ${decision.limit} requests per ${decision.windowSeconds} s for this client. Retry after ${decision.retryAfterSeconds} s.`;
      const response = apiError(429, "rate_limited", message, {
        correlationId,
        headers: { "Retry-After": String(decision.retryAfterSeconds) },
        details: { limit: decision.limit, windowSeconds: decision.windowSeconds, retryAfter: decision.retryAfterSeconds },
      });
      return { response, target, params, reason: storeDown ? "rate limiter store unavailable (fail closed)" : `limit ${decision.limit}/${decision.windowSeconds}s` };
    }

    if (!route) {
      const response = pathMatched
        ? apiError(405, "method_not_allowed", `${request.method} is not supported on ${path}.`)
        : apiError(404, "not_found", `No API route ${request.method} ${path}. See the README for the REST API.`);
      return { response, target, params, reason: pathMatched ? "method not allowed" : "no such route" };
    }
    const notes: string[] = [];
    const note = (fact: string) => {
      if (notes.length < 4) notes.push(fact.replace(/[\u0000-\u001f\u007f]/g, " ").slice(0, 120));
    };
    const response = await route.handle({ request, env, principal, params, ctx, correlationId, note });
    return { response, target, params, reason: response.ok ? notes.join("; ") : await errorCodeOf(response) };
  }

  return {
    async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
      const { props, auth } = ctx as unknown as OAuthResourceContext<GrantProps>;
      const principal = principalFromGrant(props, auth);
      const correlationId = newCorrelationId();
      const started = Date.now();
      let handled: Handled;
      try {
        handled = await dispatch(request, env, ctx, principal, correlationId);
      } catch (error) {
        logError("api route threw", { correlationId, error });
        handled = {
          response: apiError(500, "internal_error", "Arbiter hit an unexpected error. Try again; if it persists, give the correlation id to your administrator.", { correlationId }),
          target: `${request.method} ${new URL(request.url).pathname.slice(0, 150)}`,
          params: {},
          reason: "unexpected failure",
        };
      }
      const query = Object.fromEntries(new URL(request.url).searchParams);
      const args = { ...(Object.keys(handled.params).length ? { params: handled.params } : {}), ...(Object.keys(query).length ? { query } : {}) };
      await auditFor(env)
        .record(
          await auditRecordOf({
            correlationId,
            caller: principal,
            kind: "route",
            target: handled.target,
            arguments: args,
            startedMs: started,
            outcome: outcomeForStatus(handled.response.status),
            reason: handled.reason,
          }),
        )
        .catch((error: unknown) => logError("audit sink failed", { correlationId, error }));
      const response = await withOccurrence(handled.response, correlationId);
      response.headers.set("X-Correlation-Id", correlationId);
      return response;
    },
  };
}
