/**
 * A verdict as Markdown, for a pull-request comment or a CI summary. Everything from documents (paths, messages)
 * is escaped so a path template cannot inject Markdown or HTML into the comment.
 */
import type { Severity, Verdict } from "./types";

const SEVERITY_LABEL: Record<Severity, string> = { error: "Error", warning: "Warning", info: "Info" };
const MAX_LISTED = 200;

/** Escapes text for a Markdown table cell or paragraph: HTML specials, Markdown punctuation, pipes, newlines. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/([\\`*_[\]|#~!])/g, "\\$1")
    .replace(/\r?\n/g, " ");
}

/** Inline code that cannot be broken out of: backticks inside become a longer fence. */
function code(text: string): string {
  const clean = text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
  const longest = Math.max(0, ...(clean.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${longest > 0 ? " " : ""}${clean}${longest > 0 ? " " : ""}${fence}`;
}

/**
 * Without `snapshot` the verdict is a contract's own (the constitution checked at upload): there is no
 * implementation in it, so the text speaks of the contract and its constitution only.
 */
export function renderVerdictMarkdown(verdict: Verdict, context: { project: string; contractVersion?: string; snapshot?: string }): string {
  const lines: string[] = [];
  const ofSnapshot = context.snapshot !== undefined;
  const outcome = verdict.approved ? "✅ Approved" : "❌ Rejected";
  lines.push(`## Arbiter ${ofSnapshot ? "conformance" : "constitution check of the contract"}: ${outcome}`, "");
  const facts = [`Project: ${code(context.project)}`];
  if (context.contractVersion) facts.push(`contract ${code(context.contractVersion)}`);
  if (context.snapshot) facts.push(`snapshot ${code(context.snapshot)}`);
  lines.push(facts.join(" · "), "");
  if (verdict.totalViolations === 0) {
    lines.push(ofSnapshot ? "The implementation matches the contract: no violations." : "The contract follows the organization's constitution: no violations.");
    return lines.join("\n") + "\n";
  }
  const errors = verdict.violations.filter((violation) => violation.severity === "error").length;
  const consequence = ofSnapshot ? "errors reject the snapshot" : "errors mark the contract not approved; it is stored and active all the same";
  lines.push(`${verdict.totalViolations} violation${verdict.totalViolations === 1 ? "" : "s"}, ${errors} of them error${errors === 1 ? "" : "s"} (${consequence}).`, "");
  lines.push("| Rule | Severity | Count |", "| --- | --- | ---: |");
  for (const entry of verdict.summary) lines.push(`| ${code(entry.rule)} | ${SEVERITY_LABEL[entry.severity]} | ${entry.count} |`);
  lines.push("", "| Severity | Rule | Location | Message |", "| --- | --- | --- | --- |");
  for (const violation of verdict.violations.slice(0, MAX_LISTED)) {
    lines.push(`| ${SEVERITY_LABEL[violation.severity]} | ${code(violation.rule)} | ${code(violation.location)} | ${escapeMarkdown(violation.message)} |`);
  }
  if (verdict.violations.length > MAX_LISTED) lines.push("", `… and ${verdict.violations.length - MAX_LISTED} more (see the full verdict).`);
  return lines.join("\n") + "\n";
}
