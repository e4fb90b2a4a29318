/**
 * Builds a verdict from reported violations: applies configured severities, exemptions and accepted breaks (an
 * accepted error becomes "accepted"), orders violations by rule registry order then location, and summarises by
 * rule. `approved` is true when no violation is an error.
 * A verdict lists at most MAX_LISTED_PER_RULE violations of each rule; its counts cover all of them.
 */
import { type AcceptedBreak, breakFingerprint } from "./acceptance";
import type { ConformanceConfig, Exemption } from "./config";
import { keepLayout } from "../keep-layout";
import type { AcceptanceRef, RuleSummary, Severity, Verdict, Violation } from "../types";

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
 * One rule's reports: its severity and exemptions looked up once, not at each of its (thousands of) violations.
 * `report` counts in place: a snapshot upload's verdict runs cold (fresh documents, often after a full GC), where
 * every function call on the way of 3,041 findings counted. It is a method, not an arrow per instance: a rule's
 * optimized code inlines it, and an arrow made per verdict tied that code to one verdict (it was thrown away
 * with it, so each upload ran the rules unoptimized again).
 */
export class RuleReports {
  count = 0;
  /** This rule's accepted findings, reported apart (severity "accepted"), made at the first one. */
  private acceptedReports: RuleReports | null = null;
  constructor(
    readonly rule: string,
    readonly severity: Severity,
    private readonly exemptions: readonly Exemption[],
    /** The collector's lists: the violations it lists, and the rules that reported, in the order they first did. */
    private readonly listed: Violation[],
    private readonly reported: RuleReports[],
    /** The acceptances in force that name this rule, by fingerprint; null when there are none (the usual case). */
    private readonly acceptances: ReadonlyMap<string, AcceptedBreak> | null = null,
  ) {}

  report(location: string, message: string): void {
    if (this.exemptions.length !== 0 && isExempt(this.exemptions, location)) return;
    if (this.severity !== "error") {
      if (this.count++ === 0) this.reported.push(this);
      if (this.count <= MAX_LISTED_PER_RULE)
        this.listed.push({ rule: this.rule, severity: this.severity, location, message });
      return;
    }
    const fingerprint = breakFingerprint(this.rule, location);
    const accepted = this.acceptances?.get(fingerprint);
    if (accepted) {
      this.acceptedReports ??= new RuleReports(this.rule, "accepted", [], this.listed, this.reported);
      this.acceptedReports.reportAccepted(location, message, fingerprint, accepted);
      return;
    }
    if (this.count++ === 0) this.reported.push(this);
    if (this.count <= MAX_LISTED_PER_RULE)
      this.listed.push({ rule: this.rule, severity: this.severity, location, message, fingerprint });
  }

  private reportAccepted(location: string, message: string, fingerprint: string, accepted: AcceptedBreak): void {
    if (this.count++ === 0) this.reported.push(this);
    if (this.count > MAX_LISTED_PER_RULE) return;
    const acceptance: AcceptanceRef = {
      id: accepted.id,
      reason: accepted.reason,
      owner: accepted.owner,
      expiresAt: accepted.expiresAt,
    };
    this.listed.push({ rule: this.rule, severity: "accepted", location, message, fingerprint, acceptance });
  }
}

/**
 * Takes violations as rules report them: applies configured severities and exemptions at once, counts every
 * effective violation, keeps at most MAX_LISTED_PER_RULE of each rule, and builds the verdict.
 */
export class ViolationCollector {
  private readonly listed: Violation[] = [];
  /** Each rule that reported at least one violation, in the order rules first reported. */
  private readonly reported: RuleReports[] = [];
  private readonly byRule = new Map<string, RuleReports | null>();

  constructor(private readonly config: ConformanceConfig) {}

  /**
   * Where `rule` reports, or null when it is off. The exemptions that name it (or "*") are picked once: most
   * rules have none, so their violations skip reading the operation out of the location.
   */
  forRule(rule: string): RuleReports | null {
    let reports = this.byRule.get(rule);
    if (reports === undefined) {
      const severity = this.config.severities.get(rule);
      const accepted = (this.config.acceptances ?? []).filter((acceptance) => acceptance.rule === rule);
      reports =
        severity === undefined || severity === "off"
          ? null
          : new RuleReports(
              rule,
              severity,
              this.config.exemptions.filter((exemption) => exemption.rule === "*" || exemption.rule === rule),
              this.listed,
              this.reported,
              accepted.length === 0
                ? null
                : new Map(accepted.map((acceptance) => [acceptance.fingerprint, acceptance])),
            );
      this.byRule.set(rule, reports);
    }
    return reports;
  }

  report(rule: string, location: string, message: string): void {
    this.forRule(rule)?.report(location, message);
  }

  /** Violations of severity error reported so far. */
  errorCount(): number {
    let errors = 0;
    for (const reports of this.reported) if (reports.severity === "error") errors += reports.count;
    return errors;
  }

  verdict(ruleOrder: readonly string[]): Verdict {
    const order = new Map(ruleOrder.map((id, index) => [id, index]));
    const violations = this.listed;
    // Rules report one after another, so neighbours almost always share the rule: its order is looked up only
    // when they do not (the same order as comparing the rules' positions every time).
    violations.sort(
      (a, b) =>
        (a.rule === b.rule ? 0 : (order.get(a.rule) ?? 0) - (order.get(b.rule) ?? 0)) ||
        (a.location < b.location ? -1 : a.location > b.location ? 1 : 0),
    );
    // Summary in the order rules first reported, as the listed violations before (rules report in registry order).
    const summary: RuleSummary[] = this.reported.map(({ rule, severity, count }) => ({ rule, severity, count }));
    summary.sort((a, b) => (order.get(a.rule) ?? 0) - (order.get(b.rule) ?? 0));
    let total = 0;
    for (const { count } of this.reported) total += count;
    return {
      approved: !this.reported.some((reports) => reports.severity === "error"),
      totalViolations: total,
      violations,
      summary,
    };
  }
}

// The layouts every check allocates (keep-layout.ts): a full GC between two uploads otherwise freed them and sent
// the collector, and every constitution rule reporting through it, back to unoptimized code.
// biome-ignore lint/plugin: a warm-up object only: the collector reads these two fields of its configuration
keepLayout(new ViolationCollector({ severities: new Map(), exemptions: [] } as unknown as ConformanceConfig));
keepLayout(new RuleReports("", "error", [], [], []));
keepLayout({ rule: "", severity: "error", location: "", message: "" } satisfies Violation);
keepLayout({ rule: "", severity: "error", location: "", message: "", fingerprint: "" } satisfies Violation);

export function buildVerdict(
  raw: readonly RawViolation[],
  ruleOrder: readonly string[],
  config: ConformanceConfig,
): Verdict {
  const collector = new ViolationCollector(config);
  for (const entry of raw) collector.report(entry.rule, entry.location, entry.message);
  return collector.verdict(ruleOrder);
}

/** Several verdicts as one (a snapshot's conformance and its constitution). */
export function mergeVerdicts(verdicts: readonly Verdict[], ruleOrder: readonly string[]): Verdict {
  const order = new Map(ruleOrder.map((id, index) => [id, index]));
  const violations = verdicts.flatMap((verdict) => verdict.violations);
  const summary = verdicts
    .flatMap((verdict) => verdict.summary)
    .sort((a, b) => (order.get(a.rule) ?? 0) - (order.get(b.rule) ?? 0));
  return {
    approved: verdicts.every((verdict) => verdict.approved),
    totalViolations: verdicts.reduce((sum, verdict) => sum + verdict.totalViolations, 0),
    violations,
    summary,
  };
}
