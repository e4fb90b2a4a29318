/**
 * What the governed core tells OpenTelemetry about an operation (src/telemetry): the operation's span and its
 * attributes (organization, operation, outcome, rate-limit decision, correlation id), and its metrics (operations
 * by outcome, latency, refusals by reason). Kept beside governed.ts so the core's steps read as before.
 */
import type { RateLimitDecision } from "../ratelimit/hook";
import type { Attributes, Span, Telemetry } from "../telemetry";
import type { Failure } from "./failure";

interface Described {
  kind: string;
  target: string;
  telemetryName?: string;
}

/** The operation as telemetry names it: never the caller's own words (governed.ts `telemetryName`). */
const nameOf = (operation: Described) => operation.telemetryName ?? operation.target;

export function operationSpanName(operation: Described): string {
  return `${operation.kind} ${nameOf(operation)}`;
}

export function operationAttributes(operation: Described, organizationId: string, correlationId: string): Attributes {
  return {
    "arbiter.organization": organizationId,
    "arbiter.operation": nameOf(operation),
    "arbiter.operation.kind": operation.kind,
    "arbiter.correlation_id": correlationId,
  };
}

export function decisionAttributes(decision: RateLimitDecision | undefined): Attributes {
  if (!decision) return { "arbiter.ratelimit.decision": "none" };
  if (decision.allowed) return { "arbiter.ratelimit.decision": "allowed" };
  return {
    "arbiter.ratelimit.decision":
      decision.cause === "store-unavailable" ? "refused-store-unavailable" : "refused-quota",
  };
}

/** The refusal reason metrics and spans name: scope, quota, rate-limit store, input; undefined for other failures. */
export function refusalReason(failure: Failure | undefined): string | undefined {
  if (!failure) return undefined;
  if (failure.kind === "insufficient_scope") return "scope";
  if (failure.code === "rate_limit_unavailable") return "ratelimit-store";
  if (failure.kind === "rate_limited") return "quota";
  if (failure.kind === "invalid_input") return "input";
  return undefined;
}

/** Ends the operation's story: outcome on the span, the operation counted and timed, a refusal counted by reason. */
export function settleOperation(
  telemetry: Telemetry,
  span: Span,
  operation: Described,
  organizationId: string,
  outcome: string,
  failure: Failure | undefined,
  durationMs: number,
): void {
  const reason = refusalReason(failure);
  span.set({ "arbiter.outcome": outcome, ...(reason ? { "arbiter.refusal.reason": reason } : {}) });
  if (failure && outcome !== "ok") span.fail(failure.kind);
  const attributes: Attributes = {
    "arbiter.organization": organizationId,
    "arbiter.operation": nameOf(operation),
    "arbiter.operation.kind": operation.kind,
    "arbiter.outcome": outcome,
  };
  const metrics = telemetry.exporter.metrics;
  metrics.count("arbiter.operations", attributes);
  metrics.record("arbiter.operation.duration", attributes, durationMs);
  if (reason)
    metrics.count("arbiter.refusals", {
      "arbiter.organization": organizationId,
      "arbiter.operation": nameOf(operation),
      "arbiter.operation.kind": operation.kind,
      "arbiter.refusal.reason": reason,
    });
}
