/**
 * The REST API protected resource (`${PUBLIC_URL}/api`): /api/v1/... and /chat (served here as /api/chat).
 * The REST adapter of the governed core (src/core/governed.ts): route match, then the core's steps in order,
 * scope check (403 with the step-up challenge) -> rate limit per client (429 with Retry-After, before the
 * handler runs) -> handler -> audit. Each request leaves exactly one audit record, whatever the answer, and
 * carries its correlation id in `X-Correlation-Id`, in every problem body and in the audit record.
 */
import {
  insufficientScope,
  type OAuthResourceAuth,
  type OAuthResourceContext,
} from "@cloudflare/workers-oauth-provider";
import { outcomeForStatus } from "../audit/http-outcome";
import type { AuditSink } from "../audit/record";
import { auditSinkFor } from "../audit/sink";
import { CI_KEY_CLIENT_PREFIX, CI_KEY_SCOPES } from "../oauth/cikeys";
import { CORRELATION_HEADER, newCorrelationId } from "../core/correlation";
import { Failure } from "../core/failure";
import { governed, type GovernedOperation } from "../core/governed";
import { principalFromGrant, type Principal, withinRoleCap } from "../core/principal";
import { currentlyGrantable } from "../directory/grantable";
import type { Env } from "../env";
import type { GrantProps } from "../oauth/grant-props";
import type { RateLimiter } from "../ratelimit/hook";
import { REST_RATE_LIMIT_TARGET } from "../ratelimit/keys";
import { rateLimiterFor } from "../ratelimit/limiter";
import { telemetryFor } from "../telemetry";
import { failureProblem } from "../core/problem";

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
  /**
   * Says that the handler runs one operation through the governed core with this request's correlation id (a tool
   * call) and that its audit record stands for the request: the router then writes none of its own.
   */
  delegateAudit(): void;
}

export interface ApiRoute {
  method: string;
  /** Path pattern with `:name` segments, e.g. `/api/v1/projects/:project`. */
  path: string;
  requiredScopes: readonly string[];
  handle(input: ApiRequest): Promise<Response>;
}

/** Methods telemetry names as they are; any other becomes OTHER (a method is the caller's word too). */
const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export interface ApiHandlerOptions {
  rateLimiter?: (env: Env) => RateLimiter;
  audit?: (env: Env) => AuditSink;
}

interface PathMatch {
  params: Record<string, string>;
  /** A path parameter whose segment is not percent-encoded UTF-8 (the route is still the one the path names). */
  undecodable?: { name: string; segment: string };
}

function match(pattern: string, path: string): PathMatch | undefined {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return undefined;
  const found: PathMatch = { params: {} };
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? "";
    const g = got[i] ?? "";
    if (w.startsWith(":")) {
      if (!g) return undefined;
      try {
        found.params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        found.undecodable ??= { name: w.slice(1), segment: g };
      }
    } else if (w !== g) return undefined;
  }
  return found;
}

/** What a caller lacking `missing` can do about it: CI keys come from an admin and never carry admin scopes. */
function scopeNextStep(principal: Principal, missing: readonly string[], scopes: string): string {
  if (!principal.clientId.startsWith(CI_KEY_CLIENT_PREFIX))
    return `Ask for an access token with ${scopes} (request scope="${missing.join(" ")}" when authorizing) and retry.`;
  const keyCanCarry = missing.every((scope) => (CI_KEY_SCOPES as readonly string[]).includes(scope));
  return keyCanCarry
    ? `Ask your organization admin for a CI key with ${scopes} and retry.`
    : `CI keys cannot carry ${scopes}: use an OAuth access token with ${scopes}.`;
}

/** How REST words a scope refusal: it names the credential (access token or CI key) and how to get the scope. */
function scopeMessage(principal: Principal, missing: readonly string[]): string {
  const scopes = `${missing.length === 1 ? "the scope" : "the scopes"} ${missing.join(" ")}`;
  const credential = principal.clientId.startsWith(CI_KEY_CLIENT_PREFIX) ? "CI key" : "access token";
  return `This route needs ${scopes}, which your ${credential} does not carry. ${scopeNextStep(principal, missing, scopes)}`;
}

/**
 * A Failure of the core as the REST answer: the problem body from the one mapping, plus, for a missing scope, the
 * step-up challenge exactly as the OAuth library builds it (clients following RFC 6750 and the MCP authorization
 * spec read the header, not the body).
 */
function failureAnswer(failure: Failure, auth: OAuthResourceAuth, correlationId: string): Response {
  if (failure.kind !== "insufficient_scope") return failureProblem(failure, {}, correlationId);
  const missing = failure.details.missingScopes as string[];
  const challenge =
    insufficientScope(
      auth,
      [...new Set([...auth.scope, ...missing])],
      `This route needs ${missing.length === 1 ? "the scope" : "the scopes"} ${missing.join(" ")}`,
    ).headers.get("WWW-Authenticate") ?? "";
  return failureProblem(
    new Failure(failure.kind, failure.message, { missingScopes: missing }, failure.code),
    { "WWW-Authenticate": challenge },
    correlationId,
  );
}

/** The route a request names, its path parameters, and whether some route has its path (405 rather than 404). */
function routeOf(
  routes: readonly ApiRoute[],
  method: string,
  path: string,
): {
  route: ApiRoute | undefined;
  params: Record<string, string>;
  pathMatched: boolean;
  undecodable?: PathMatch["undecodable"];
} {
  let pathMatched = false;
  for (const candidate of routes) {
    const found = match(candidate.path, path);
    if (!found) continue;
    pathMatched = true;
    if (candidate.method === method) return { route: candidate, ...found, pathMatched };
  }
  return { route: undefined, params: {}, pathMatched };
}

export function createApiHandler(routes: readonly ApiRoute[], options: ApiHandlerOptions = {}) {
  const limiterFor = options.rateLimiter ?? ((env: Env) => rateLimiterFor(env));
  const auditFor = options.audit ?? auditSinkFor;

  async function serve(request: Request, env: Env, ctx: ExecutionContext, correlationId: string): Promise<Response> {
    // biome-ignore lint/plugin: workers-oauth-provider hands the verified grant to the handler on ctx, untyped
    const { props, auth } = ctx as unknown as OAuthResourceContext<GrantProps>;
    const principal = withinRoleCap(
      principalFromGrant(props, auth),
      await currentlyGrantable(env, props.organizationId, props.role),
    );
    const url = new URL(request.url);
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const { route, params, pathMatched, undecodable } = routeOf(routes, request.method, path);
    const query = Object.fromEntries(url.searchParams);
    const operation: GovernedOperation = {
      kind: "route",
      target: route ? `${route.method} ${route.path}` : `${request.method} ${path.slice(0, 150)}`,
      ...(route
        ? {}
        : { telemetryName: `${HTTP_METHODS.has(request.method) ? request.method : "OTHER"} (no such route)` }),
      label: "the REST API",
      requiredScopes: route?.requiredScopes ?? [],
      rateLimit: { target: REST_RATE_LIMIT_TARGET, unit: "requests" },
      scopeMessage: (missing) => scopeMessage(principal, missing),
    };
    const args = { ...(Object.keys(params).length ? { params } : {}), ...(Object.keys(query).length ? { query } : {}) };
    const notes: string[] = [];
    let delegated = false;
    const note = (fact: string) => {
      if (notes.length < 4) notes.push(fact.replace(/[\u0000-\u001f\u007f]/g, " ").slice(0, 120));
    };
    const outcome = await governed(
      operation,
      {
        principal,
        correlationId,
        arguments: args,
        deps: { rateLimiter: limiterFor(env), audit: auditFor(env), telemetry: telemetryFor(env) },
      },
      {
        handler: async () => {
          if (!route) {
            if (pathMatched)
              throw new Failure("method_not_allowed", `${request.method} is not supported on ${path}.`).auditedAs(
                "method not allowed",
              );
            throw new Failure(
              "not_found",
              `No API route ${request.method} ${path}. See docs/ci.md for the REST API.`,
            ).auditedAs("no such route");
          }
          if (undecodable)
            throw new Failure(
              "invalid_input",
              `The path parameter ${undecodable.name} ("${undecodable.segment.slice(0, 60)}") is not percent-encoded ` +
                "UTF-8. Encode it with encodeURIComponent (RFC 3986) and retry.",
              {},
              "invalid_path",
            ).auditedAs("undecodable path parameter");
          try {
            return await route.handle({
              request,
              env,
              principal,
              params,
              ctx,
              correlationId,
              note,
              delegateAudit: () => (delegated = true),
            });
          } catch (error) {
            // A handler raises its failure; the core maps it (one table, src/core/failure.ts). The audit record's
            // reason is the failure's stable code, as for every REST error answer.
            if (error instanceof Failure && error.auditReason === undefined) error.auditedAs(error.code.slice(0, 64));
            throw error;
          }
        },
        settle: async (response) =>
          delegated
            ? null
            : {
                outcome: outcomeForStatus(response.status),
                // Failures are thrown and reach the core as they are; a handler's own non-2xx answer (a 405 of a
                // page route) is named by its status, never by reading its body back.
                reason: response.ok ? notes.join("; ") : `HTTP ${response.status}`,
              },
      },
    );
    return outcome.ok ? outcome.value : failureAnswer(outcome.failure, auth, correlationId);
  }

  return {
    async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
      const correlationId = newCorrelationId();
      const served = await serve(request, env, ctx, correlationId);
      // A fresh Response: the handler's may have immutable headers.
      const response = new Response(served.body, served);
      response.headers.set(CORRELATION_HEADER, correlationId);
      return response;
    },
  };
}
