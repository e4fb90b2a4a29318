/**
 * Builds a verdict from reported violations: applies configured severities and exemptions, orders violations by
 * rule registry order then location, and summarises by rule. `approved` is true when no violation is an error.
 */
import type { ConformanceConfig } from "./config";
import type { RuleSummary, Severity, Verdict, Violation } from "./types";

export interface RawViolation {
  rule: string;
  location: string;
  message: string;
}

/** "GET /orders/{id}#/responses/200" -> ["GET", "/orders/{id}"]; undefined for document-level locations. */
function operationOf(location: string): [string, string] | undefined {
  const head = location.split("#")[0] ?? "";
  const match = /^([A-Z]+) (\/\S*)$/.exec(head);
  return match ? [match[1] ?? "", match[2] ?? ""] : undefined;
}

function isExempt(config: ConformanceConfig, violation: RawViolation): boolean {
  if (config.exemptions.length === 0) return false;
  const operation = operationOf(violation.location);
  if (!operation) return false;
  return config.exemptions.some((exemption) => (exemption.rule === "*" || exemption.rule === violation.rule) && exemption.operation.matches(operation[0], operation[1]));
}

export function buildVerdict(raw: readonly RawViolation[], ruleOrder: readonly string[], config: ConformanceConfig): Verdict {
  const order = new Map(ruleOrder.map((id, index) => [id, index]));
  const violations: Violation[] = [];
  for (const entry of raw) {
    const severity = config.severities.get(entry.rule);
    if (severity === undefined || severity === "off") continue;
    if (isExempt(config, entry)) continue;
    violations.push({ rule: entry.rule, severity, location: entry.location, message: entry.message });
  }
  violations.sort((a, b) => (order.get(a.rule) ?? 0) - (order.get(b.rule) ?? 0) || (a.location < b.location ? -1 : a.location > b.location ? 1 : 0));
  const counts = new Map<string, { severity: Severity; count: number }>();
  for (const violation of violations) {
    const entry = counts.get(violation.rule);
    if (entry) entry.count++;
    else counts.set(violation.rule, { severity: violation.severity, count: 1 });
  }
  const summary: RuleSummary[] = [...counts].map(([rule, { severity, count }]) => ({ rule, severity, count }));
  return {
    approved: !violations.some((violation) => violation.severity === "error"),
    totalViolations: violations.length,
    violations,
    summary,
  };
}

/** Several verdicts as one (a snapshot's conformance and its constitution). */
export function mergeVerdicts(verdicts: readonly Verdict[], ruleOrder: readonly string[]): Verdict {
  const order = new Map(ruleOrder.map((id, index) => [id, index]));
  const violations = verdicts.flatMap((verdict) => verdict.violations);
  const summary = verdicts.flatMap((verdict) => verdict.summary).sort((a, b) => (order.get(a.rule) ?? 0) - (order.get(b.rule) ?? 0));
  return {
    approved: verdicts.every((verdict) => verdict.approved),
    totalViolations: violations.length,
    violations,
    summary,
  };
}
