/**
 * The governed core: the one path every operation of every surface takes, in this order:
 *   who is calling -> scope check -> rate limit -> input validation -> handler -> audit -> (error mapping).
 * Its callers are thin adapters: MCP tools, resources, templates, prompts and subscriptions in both eras
 * (src/mcp), the REST routes and /chat (src/api). An adapter says what the operation is (a GovernedOperation),
 * hands over the verified principal and the request's correlation id, and maps the Failure it may get back with
 * failure-mapping.ts. Exactly one audit record per operation, written here whatever the answer; a failing audit
 * store never fails the operation (the sink logs the full record instead).
 * The HTTP step-up challenge (403 before any session) is the scope step run ahead of the rest: adapters call
 * `scopeGate` first and `refuse` with its failure, which audits it exactly as `governed` would.
 */
import type { z } from "zod";
import { auditRecordOf, type AuditKind, type AuditOutcome, type AuditSink } from "../audit/record";
import type { RateLimitDecision, RateLimiter } from "../ratelimit/hook";
import { withSpan, type Span } from "../lib/telemetry/span";
import type { Telemetry } from "../telemetry";
import { humaniseIssues } from "../lib/humanise";
import { logError } from "../lib/log";
import { newCorrelationId } from "./correlation";
import { Failure } from "./failure";
import { decisionAttributes, operationAttributes, operationSpanName, settleOperation } from "./governed-telemetry";
import { missingScopes, type Principal } from "./principal";

export interface GovernanceDeps {
  audit: AuditSink;
  rateLimiter: RateLimiter;
  /** OpenTelemetry (src/telemetry): absent when no OTLP endpoint is configured. */
  telemetry?: Telemetry;
}

/** What an adapter is about to run, as the core governs and audits it. */
export interface GovernedOperation {
  kind: AuditKind;
  /** The audit record's target: tool name, resource or prompt name, `METHOD /route`. */
  target: string;
  /**
   * What telemetry names the operation when `target` holds the caller's own words (an unknown route's path):
   * span names and attributes leave the deployment and become metric dimensions, so they never carry caller text.
   */
  telemetryName?: string;
  /** How messages name it: `orders_search`, `the resource spec://active/contract`, `the REST API`. */
  label: string;
  requiredScopes: readonly string[];
  /** The rate-limit bucket (policies/rate-limits.json), or null for an operation with no quota of its own. */
  rateLimit: { target: string; unit: string } | null;
  /** The scope refusal's message, when the surface words it differently (REST names the credential). */
  scopeMessage?(missing: readonly string[]): string;
}

export interface GovernedCall {
  principal: Principal;
  /** One per request: the same in the answer, its X-Correlation-Id header, the audit record and the log. */
  correlationId: string;
  /** What the caller sent; the audit record keeps only its digest. */
  arguments: unknown;
  deps: GovernanceDeps;
}

/** What the handler's result says for the audit record (REST handlers answer failures with a status). */
export interface Settled {
  outcome: AuditOutcome;
  reason: string;
}

export type Governed<T> =
  | { ok: true; value: T; decision: RateLimitDecision | undefined }
  | { ok: false; failure: Failure };

export interface GovernedSteps<In, T> {
  /** Validates the arguments; its issues become an invalid_input failure in plain words. */
  input?: z.ZodType<In>;
  handler(input: In, decision: RateLimitDecision | undefined): Promise<T>;
  /**
   * The audit outcome of a value the handler returned (default: ok). `null` when the handler ran one operation
   * through the core itself, with this call's correlation id, whose record stands for this call (/chat's tool
   * call): the request still leaves exactly one record.
   */
  settle?(value: T): Settled | null | Promise<Settled | null>;
}

function scopeWords(missing: readonly string[]): string {
  return missing.map((scope) => `"${scope}"`).join(", ");
}

/** The scope step alone: the failure the operation gets when the principal lacks a scope it needs. */
export function scopeGate(operation: GovernedOperation, principal: Principal): Failure | undefined {
  const missing = missingScopes(principal.scopes, operation.requiredScopes);
  if (missing.length === 0) return undefined;
  const message =
    operation.scopeMessage?.(missing) ??
    `Insufficient scope: ${operation.label} needs the OAuth scope ${scopeWords(missing)}. Reconnect this client and grant ${missing.length > 1 ? "them" : "it"} on the consent page.`;
  return new Failure("insufficient_scope", message, {
    requiredScopes: [...operation.requiredScopes],
    missingScopes: missing,
  });
}

function rateLimitFailure(
  operation: GovernedOperation,
  unit: string,
  decision: Extract<RateLimitDecision, { allowed: false }>,
): Failure {
  const storeDown = decision.cause === "store-unavailable";
  const message = storeDown
    ? `${operation.label} is paused: the rate-limit counters cannot be read and policy refuses ${unit} until they can.`
    : `Rate limit reached: ${operation.label} allows ${decision.limit} ${unit} per ${decision.windowSeconds} s for this client.`;
  return new Failure(
    "rate_limited",
    `${message} Retry after ${decision.retryAfterSeconds} s.`,
    { retryAfter: decision.retryAfterSeconds, limit: decision.limit, windowSeconds: decision.windowSeconds },
    storeDown ? "rate_limit_unavailable" : "rate_limited",
  );
}

function reasonOf(failure: Failure): string {
  if (failure.auditReason !== undefined) return failure.auditReason;
  if (failure.kind === "insufficient_scope")
    return `missing scope ${(failure.details.missingScopes as string[]).join(" ")}`;
  if (failure.code === "rate_limit_unavailable") return "rate-limit store unavailable (fail closed)";
  if (failure.kind === "rate_limited")
    return `limit ${String(failure.details.limit)}/${String(failure.details.windowSeconds)}s`;
  return failure.message.slice(0, 200);
}

async function audit(
  operation: GovernedOperation,
  call: GovernedCall,
  startedMs: number,
  settled: Settled,
): Promise<void> {
  const record = await auditRecordOf({
    correlationId: call.correlationId,
    caller: call.principal,
    kind: operation.kind,
    target: operation.target,
    arguments: call.arguments,
    startedMs,
    outcome: settled.outcome,
    reason: settled.reason,
  });
  await withSpan("audit.record", "internal", {}, () => call.deps.audit.record(record)).catch((error: unknown) =>
    logError("audit sink failed", { correlationId: call.correlationId, error }),
  );
}

/**
 * Audits an operation refused before it ran (the HTTP step-up answer of /mcp), exactly as `governed` would have;
 * `describe` may set the reason in its context (e.g. with the JSON-RPC method and "HTTP 403 step-up").
 */
export async function refuse(
  operation: GovernedOperation,
  call: GovernedCall,
  failure: Failure,
  describe: (reason: string) => string = (reason) => reason,
): Promise<void> {
  await audit(operation, call, Date.now(), { outcome: failure.outcome, reason: describe(reasonOf(failure)) });
}

/** Runs one operation through every step; never throws (an unexpected error is an `internal` failure, logged). */
export async function governed<In, T>(
  operation: GovernedOperation,
  call: GovernedCall,
  steps: GovernedSteps<In, T>,
): Promise<Governed<T>> {
  const telemetry = call.deps.telemetry;
  if (!telemetry) return governedSteps(operation, call, steps, undefined);
  const attributes = operationAttributes(operation, call.principal.organizationId, call.correlationId);
  return telemetry.span(operationSpanName(operation), "server", attributes, (span) =>
    governedSteps(operation, call, steps, { telemetry, span }),
  );
}

async function governedSteps<In, T>(
  operation: GovernedOperation,
  call: GovernedCall,
  steps: GovernedSteps<In, T>,
  traced: { telemetry: Telemetry; span: Span } | undefined,
): Promise<Governed<T>> {
  const started = Date.now();
  let settled: Settled | null = { outcome: "error", reason: "unexpected failure" };
  let failed: Failure | undefined;
  try {
    const refused = scopeGate(operation, call.principal);
    if (refused) throw refused;

    let decision: RateLimitDecision | undefined;
    if (operation.rateLimit) {
      const subject = {
        organizationId: call.principal.organizationId,
        clientId: call.principal.clientId,
        target: operation.rateLimit.target,
      };
      decision = await (traced
        ? withSpan("ratelimit.decide", "internal", {}, () => call.deps.rateLimiter.check(subject))
        : call.deps.rateLimiter.check(subject));
      if (!decision.allowed) throw rateLimitFailure(operation, operation.rateLimit.unit, decision);
    }
    traced?.span.set(decisionAttributes(decision));

    let input = call.arguments as In;
    if (steps.input) {
      const parsed = steps.input.safeParse(call.arguments ?? {});
      if (!parsed.success)
        throw new Failure("invalid_input", `Invalid arguments for ${operation.label}: ${humaniseIssues(parsed.error)}`);
      input = parsed.data;
    }

    const value = await steps.handler(input, decision);
    settled = steps.settle ? await steps.settle(value) : { outcome: "ok", reason: "" };
    return { ok: true, value, decision };
  } catch (error) {
    const failure = error instanceof Failure ? error : unexpected(operation, call, error);
    failed = failure;
    settled = { outcome: failure.outcome, reason: reasonOf(failure) };
    if (traced && failure.kind === "rate_limited")
      traced.span.set({
        "arbiter.ratelimit.decision":
          failure.code === "rate_limit_unavailable" ? "refused-store-unavailable" : "refused-quota",
      });
    return { ok: false, failure };
  } finally {
    if (settled) await audit(operation, call, started, settled);
    if (traced)
      settleOperation(
        traced.telemetry,
        traced.span,
        operation,
        call.principal.organizationId,
        settled?.outcome ?? "ok",
        failed,
        Date.now() - started,
      );
  }
}

function unexpected(operation: GovernedOperation, call: GovernedCall, error: unknown): Failure {
  logError("governed operation threw", {
    kind: operation.kind,
    target: operation.target,
    correlationId: call.correlationId,
    error,
  });
  return new Failure(
    "internal",
    `${operation.label} failed: internal error. Try again; if it persists, give the correlation id to your administrator.`,
    {},
    "internal_error",
  ).auditedAs("unexpected failure");
}

/** An audited event that is not a call (an OAuth grant, a revocation, a CI key created in the console). */
export interface AuditedEvent {
  caller: { organizationId: string; userId: string; clientId: string };
  /** Short event name, e.g. `grant`, `revoke`, `ci_key_created`. */
  target: string;
  /** Short, safe facts: never a key, a token or a secret. */
  reason: string;
  /** The request's correlation id when the event happens inside a governed request; a new one otherwise. */
  correlationId?: string;
  startedMs?: number;
}

/** The audit step alone, for events: one record of kind `oauth`, through the same sink (never throws). */
export async function recordEvent(sink: AuditSink, event: AuditedEvent): Promise<void> {
  const startedMs = event.startedMs ?? Date.now();
  const record = await auditRecordOf({
    correlationId: event.correlationId ?? newCorrelationId(),
    caller: event.caller,
    kind: "oauth",
    target: event.target,
    arguments: undefined,
    startedMs,
    outcome: "ok",
    reason: event.reason.slice(0, 500),
  });
  await sink
    .record(record)
    .catch((error: unknown) => logError("audit sink failed", { correlationId: record.correlationId, error }));
}
