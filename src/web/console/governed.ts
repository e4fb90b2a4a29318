/**
 * The console's adapter of the governed core (src/core/governed.ts), as src/api/router.ts is REST's: every change a
 * console form makes and every page that reads organization data runs as one governed operation, with the signed-in
 * administrator's principal, the scopes the equivalent REST route requires, exactly one audit record carrying this
 * request's correlation id, and a Failure answered from the core's one table (src/core/failure.ts) as an HTML page.
 * The console has no OAuth client and no quota of its own: its principal's client is CONSOLE_CLIENT_ID and its
 * operations have no rate-limit bucket. CSRF and Origin checks run before (routes.ts); a refused form reaches no
 * operation and records nothing.
 */
import { auditSinkFor } from "../../audit/sink";
import { CORRELATION_HEADER, newCorrelationId } from "../../core/correlation";
import type { Failure, FailureKind } from "../../core/failure";
import { governed, type Governed, type GovernedOperation, type Settled } from "../../core/governed";
import type { Principal } from "../../core/principal";
import { rateLimiterFor } from "../../ratelimit/limiter";
import { telemetryFor } from "../../telemetry";
import { errorPage, html } from "../../lib/html";
import type { ConsoleContext } from "./context";

/** One console operation: its form or page address and the scopes its REST equivalent requires. */
export interface ConsoleOperation {
  method: "GET" | "POST";
  /** The console address, e.g. `/admin/keys/revoke`; the audit record's target is `METHOD address`. */
  path: string;
  requiredScopes: readonly string[];
}

function scopeWords(missing: readonly string[]): string {
  return `${missing.length === 1 ? "the scope" : "the scopes"} ${missing.join(" ")}`;
}

export function governedOperation(operation: ConsoleOperation, principal: Principal): GovernedOperation {
  return {
    kind: "route",
    target: `${operation.method} ${operation.path}`,
    label: "the admin console",
    requiredScopes: operation.requiredScopes,
    rateLimit: null,
    scopeMessage: (missing) =>
      `This part of the admin console needs ${scopeWords(missing)}, which your role "${principal.role}" does not hold. Ask an administrator of your organization to make the change.`,
  };
}

export interface ConsoleSteps<T> {
  handler(): Promise<T>;
  /** As GovernedSteps.settle: `null` when the handler recorded the action's own event with this correlation id. */
  settle?(value: T): Settled | null;
}

/** Runs one console operation through the core; `correlationId` is the one its audit record (and any event) carries. */
export async function runGoverned<T>(
  context: ConsoleContext,
  operation: ConsoleOperation,
  args: unknown,
  steps: (correlationId: string) => ConsoleSteps<T>,
): Promise<{ result: Governed<T>; correlationId: string }> {
  const correlationId = newCorrelationId();
  const deps = {
    audit: auditSinkFor(context.env),
    rateLimiter: rateLimiterFor(context.env),
    telemetry: telemetryFor(context.env),
  };
  const { handler, settle } = steps(correlationId);
  const result = await governed(
    governedOperation(operation, context.principal),
    { principal: context.principal, correlationId, arguments: args, deps },
    { handler, ...(settle ? { settle } : {}) },
  );
  return { result, correlationId };
}

const TITLES: Partial<Record<FailureKind, string>> = {
  insufficient_scope: "Not allowed",
  forbidden: "Not allowed",
  not_found: "Not found",
  invalid_input: "Not accepted",
  rate_limited: "Too many requests",
  internal: "Something went wrong",
};

/** The answer of a governed console request, with its correlation id in X-Correlation-Id (as REST's answers). */
export function withCorrelationId(response: Response, correlationId: string): Response {
  response.headers.set(CORRELATION_HEADER, correlationId);
  return response;
}

/** A failure as the console's error page: status from the core's table, the core's message, the correlation id. */
export function failurePage(failure: Failure, correlationId: string): Response {
  return withCorrelationId(
    errorPage(
      failure.status,
      TITLES[failure.kind] ?? "Request failed",
      `${failure.message} (correlation id ${correlationId})`,
      html`<p><a href="/admin">Admin console</a></p>`,
    ),
    correlationId,
  );
}

/** Whether a failure belongs on the form's own page (what was wrong with this input) rather than an error page. */
export function isFormProblem(failure: Failure): boolean {
  return (
    failure.kind === "invalid_input" ||
    failure.kind === "not_found" ||
    failure.kind === "forbidden" ||
    failure.kind === "conflict"
  );
}
