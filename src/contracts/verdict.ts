/**
 * Builds a verdict from reported violations: applies configured severities and exemptions, orders violations by
 * rule registry order then location, and summarises by rule. `approved` is true when no violation is an error.
 * A verdict lists at most MAX_LISTED_PER_RULE violations of each rule; its counts cover all of them.
 */
import type { ConformanceConfig, Exemption } from "./config";
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

function isExempt(exemptions: readonly Exemption[], location: string): boolean {
  if (exemptions.length === 0) return false;
  const operation = operationOf(location);
  if (!operation) return false;
  return exemptions.some((exemption) => exemption.operation.matches(operation[0], operation[1]));
}

/**
 * Violations one rule lists in a verdict; `totalViolations`, `summary` and `approved` count every one. One shared
 * schema changed in a snapshot of 5,000 operations is one violation per operation and changed property: 500,000
 * of them from a 0.7 MB upload needed 200 MB (110 MB of verdict JSON), past a Worker's 128 MB. Listing a bounded
 * number per rule keeps every rule that fired visible.
 */
export const MAX_LISTED_PER_RULE = 500;

/**
 * Takes violations as rules report them: applies configured severities and exemptions at once, counts every
 * effective violation, keeps at most MAX_LISTED_PER_RULE of each rule, and builds the verdict.
 */
export class ViolationCollector {
  private readonly listed: Violation[] = [];
  private readonly counts = new Map<string, { severity: Severity; count: number }>();
  private total = 0;
  private errors = false;

  /**
   * The exemptions that name each rule (or "*"): most rules have none, so their violations (thousands, from a
   * constitution rule on a large document) skip reading the operation out of the location.
   */
  private readonly exemptionsByRule = new Map<string, readonly Exemption[]>();

  constructor(private readonly config: ConformanceConfig) {}

  private exemptionsOf(rule: string): readonly Exemption[] {
    let exemptions = this.exemptionsByRule.get(rule);
    if (exemptions === undefined) {
      exemptions = this.config.exemptions.filter((exemption) => exemption.rule === "*" || exemption.rule === rule);
      this.exemptionsByRule.set(rule, exemptions);
    }
    return exemptions;
  }

  report(rule: string, location: string, message: string): void {
    const severity = this.config.severities.get(rule);
    if (severity === undefined || severity === "off") return;
    if (isExempt(this.exemptionsOf(rule), location)) return;
    this.total++;
    if (severity === "error") this.errors = true;
    const entry = this.counts.get(rule);
    if (entry) entry.count++;
    else this.counts.set(rule, { severity, count: 1 });
    if ((entry?.count ?? 1) <= MAX_LISTED_PER_RULE) this.listed.push({ rule, severity, location, message });
  }

  verdict(ruleOrder: readonly string[]): Verdict {
    const order = new Map(ruleOrder.map((id, index) => [id, index]));
    const violations = this.listed;
    // Rules report one after another, so neighbours almost always share the rule: its order is looked up only
    // when they do not (the same order as comparing the rules' positions every time).
    violations.sort((a, b) => (a.rule === b.rule ? 0 : (order.get(a.rule) ?? 0) - (order.get(b.rule) ?? 0)) || (a.location < b.location ? -1 : a.location > b.location ? 1 : 0));
    // Summary in the order rules first reported, as the listed violations before (rules report in registry order).
    const summary: RuleSummary[] = [...this.counts].map(([rule, { severity, count }]) => ({ rule, severity, count }));
    summary.sort((a, b) => (order.get(a.rule) ?? 0) - (order.get(b.rule) ?? 0));
    return { approved: !this.errors, totalViolations: this.total, violations, summary };
  }
}

export function buildVerdict(raw: readonly RawViolation[], ruleOrder: readonly string[], config: ConformanceConfig): Verdict {
  const collector = new ViolationCollector(config);
  for (const entry of raw) collector.report(entry.rule, entry.location, entry.message);
  return collector.verdict(ruleOrder);
}

/** Several verdicts as one (a snapshot's conformance and its constitution). */
export function mergeVerdicts(verdicts: readonly Verdict[], ruleOrder: readonly string[]): Verdict {
  const order = new Map(ruleOrder.map((id, index) => [id, index]));
  const violations = verdicts.flatMap((verdict) => verdict.violations);
  const summary = verdicts.flatMap((verdict) => verdict.summary).sort((a, b) => (order.get(a.rule) ?? 0) - (order.get(b.rule) ?? 0));
  return {
    approved: verdicts.every((verdict) => verdict.approved),
    totalViolations: verdicts.reduce((sum, verdict) => sum + verdict.totalViolations, 0),
    violations,
    summary,
  };
}
