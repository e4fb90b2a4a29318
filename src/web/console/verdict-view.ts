/**
 * How the console shows a verdict: the outcome badge (never a green "approved" for a contract with no
 * operations: nothing was checked), the violations grouped by rule with severity and location, and the
 * Markdown report as escaped preformatted text (no HTML from a document ever reaches the page).
 */
import { messageOf } from "../../engine";
import type { RuleSummary, Severity, Verdict, Violation } from "../../engine";
import { html, type SafeHtml } from "../../lib/html";
import { badge, code, scrollTable, type BadgeTone } from "./components";

/** More would make a page no one reads; the downloads hold every violation. */
export const MAX_VIOLATIONS_SHOWN = 300;

const SEVERITY_TONE: Record<Severity, BadgeTone> = {
  error: "bad",
  warning: "warn",
  info: "neutral",
  accepted: "neutral",
};

export function severityBadge(severity: Severity): SafeHtml {
  return badge(SEVERITY_TONE[severity] ?? "neutral", severity);
}

/**
 * The outcome of a verdict measured against a contract with `operationCount` operations. With none, an
 * "approved" only says that nothing could be compared: shown as a warning, not as success.
 */
export function outcomeBadge(approved: boolean, operationCount: number | null | undefined): SafeHtml {
  if (operationCount === 0) return badge("warn", "no operations");
  return approved ? badge("ok", "approved") : badge("bad", "rejected");
}

/** What a verdict judged, in the words every console page uses for it. */
export type JudgedSubject =
  | { kind: "constitution"; contractVersion: number }
  | { kind: "snapshot"; number: number | null; contractVersion: number }
  | { kind: "draft"; contractVersion: number }
  | { kind: "traffic"; runId: number; contractVersion: number };

export function judgedLabel(subject: JudgedSubject): string {
  switch (subject.kind) {
    case "constitution":
      return `contract v${subject.contractVersion} against the constitution`;
    case "snapshot":
      return `${subject.number === null ? "snapshot" : `snapshot ${subject.number}`} against contract v${subject.contractVersion}`;
    case "draft":
      return `draft against contract v${subject.contractVersion}`;
    case "traffic":
      return `recorded traffic run ${subject.runId} against contract v${subject.contractVersion}`;
  }
}

/**
 * Beside a snapshot or traffic verdict judged against another version than the active one: that verdict says
 * nothing about the active contract. Empty when it was judged against the active version.
 */
export function notActiveNote(judgedVersion: number, activeVersion: number | null | undefined): SafeHtml {
  if (activeVersion === null || activeVersion === undefined || activeVersion === judgedVersion) return html``;
  return html` ${badge("warn", `v${activeVersion} is active`)}<span class="event-meta">not judged against v${activeVersion}: re-check, or wait for CI</span>`;
}

export function emptyContractNote(version: number): SafeHtml {
  return html`<p class="problem" role="note">Contract v${version} has no operations, so this verdict checked nothing: it is not an approval. Upload a contract that describes the API's operations.</p>`;
}

function groups(verdict: Verdict): Array<{ summary: RuleSummary; violations: Violation[] }> {
  // A rule with accepted breaks has two summary entries (its severity, and "accepted"): grouped by both.
  const keyOf = (rule: string, severity: string) => `${severity} ${rule}`;
  const byRule = new Map<string, Violation[]>();
  for (const violation of verdict.violations) {
    const key = keyOf(violation.rule, violation.severity);
    const list = byRule.get(key) ?? [];
    list.push(violation);
    byRule.set(key, list);
  }
  const summaries =
    verdict.summary.length > 0
      ? verdict.summary
      : [...byRule.values()].map((list) => ({
          rule: list[0]!.rule,
          severity: list[0]!.severity,
          count: list.length,
        }));
  return summaries.map((summary) => ({
    summary,
    violations: byRule.get(keyOf(summary.rule, summary.severity)) ?? [],
  }));
}

/** The violations grouped by rule: a heading per rule (id, severity, count) and a table of its violations. */
export function violationsByRule(verdict: Verdict, headingLevel: "h2" | "h3" = "h3"): SafeHtml {
  if (verdict.violations.length === 0) return html`<p>No violations.</p>`;
  let budget = MAX_VIOLATIONS_SHOWN;
  const sections = groups(verdict).map(({ summary, violations }) => {
    const shown = violations.slice(0, Math.max(0, budget));
    budget -= shown.length;
    const heading = html`${code(summary.rule)} ${severityBadge(summary.severity)} <span class="muted">${summary.count} ${summary.count === 1 ? "violation" : "violations"}</span>`;
    const id = `rule-${summary.severity === "accepted" ? "accepted-" : ""}${summary.rule.replace(/[^a-zA-Z0-9_-]/g, "-")}`;
    return html`<section class="rule-group" aria-labelledby="${id}">${headingLevel === "h2" ? html`<h2 id="${id}">${heading}</h2>` : html`<h3 id="${id}">${heading}</h3>`}
${
  shown.length === 0
    ? html`<p class="muted">Not listed here: download the verdict to read them.</p>`
    : scrollTable(
        `Violations of ${summary.rule}`,
        ["Severity", "Location", "Message"],
        shown.map(
          (v) =>
            html`<tr><td>${severityBadge(v.severity)}</td><td>${code(v.location)}${v.fingerprint ? html`<span class="event-meta">fingerprint ${code(v.fingerprint)}</span>` : ""}</td><td class="reason">${messageOf(v)}</td></tr>`,
        ),
      )
}${shown.length < violations.length && shown.length > 0 ? html`<p class="muted">${violations.length - shown.length} more of this rule: download the verdict to read them all.</p>` : ""}
</section>`;
  });
  const hidden = verdict.violations.length - Math.min(verdict.violations.length, MAX_VIOLATIONS_SHOWN);
  return html`${hidden > 0 ? html`<p class="notice" role="note">The first ${MAX_VIOLATIONS_SHOWN} of ${verdict.violations.length} violations are listed below; the downloads hold all of them.</p>` : ""}${sections}`;
}

/** Markdown as text: escaped by the template, shown as it would be pasted into a pull request. */
export function markdownBlock(markdown: string, label: string): SafeHtml {
  return html`<pre class="markdown" tabindex="0" aria-label="${label}">${markdown}</pre>`;
}
