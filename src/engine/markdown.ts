/**
 * A verdict as Markdown, for a pull-request comment or a CI summary. Everything from documents (paths, messages)
 * is escaped so a path template cannot inject Markdown or HTML into the comment.
 */
import type { ViolationLocator } from "./source-positions";
import { artifactUri } from "./formats/sarif";
import { subjectNoun, type ReportSubject } from "./formats/report";
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

export interface MarkdownContext {
  project: string;
  contractVersion?: string;
  /** Kept for callers that name a snapshot directly; `title` is the general form. */
  snapshot?: string;
  /** What was checked; decides the words ("the implementation snapshot", "the draft", "the contract"). */
  subject?: ReportSubject;
  title?: string;
  /** Where the full verdict can be read (the console's verdict page). */
  link?: string;
  /** With the uploaded file at hand: each violation's line in it, shown as `file:line` beside the location. */
  locate?: ViolationLocator;
  artifactPath?: string;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

export function renderVerdictMarkdown(verdict: Verdict, context: MarkdownContext): string {
  // Without a subject, a verdict that names no snapshot is a contract's own (its constitution check at upload).
  const subject = context.subject ?? (context.snapshot ? "snapshot" : "contract");
  const lines: string[] = [];
  const ofSnapshot = context.snapshot !== undefined;
  const outcome = verdict.approved ? "✅ Approved" : "❌ Rejected";
  const heading = subject === "contract-change" ? "Arbiter contract changelog" : subject === "contract" ? "Arbiter constitution check of the contract" : "Arbiter conformance";
  lines.push(`## ${heading}: ${outcome}`, "");
  const facts = [`Project: ${code(context.project)}`];
  if (context.contractVersion) facts.push(`contract ${code(context.contractVersion)}`);
  if (context.title) facts.push(code(context.title));
  else if (context.snapshot) facts.push(`snapshot ${code(context.snapshot)}`);
  lines.push(facts.join(" · "), "");
  if (verdict.totalViolations === 0) {
    lines.push(NO_VIOLATIONS[subject]);
    return lines.join("\n") + "\n";
  }
  // Counts come from the summary: the listing keeps at most a few hundred violations per rule, the summary all.
  const counts = { error: 0, warning: 0, info: 0 };
  for (const entry of verdict.summary) counts[entry.severity] += entry.count;
  const parts = [plural(counts.error, "error"), plural(counts.warning, "warning"), `${counts.info} info`];
  lines.push(`${plural(verdict.totalViolations, "violation")}: ${parts.join(", ")}. ${consequence(subject, verdict.approved)}`, "");
  lines.push("| Rule | Severity | Count |", "| --- | --- | ---: |");
  for (const entry of verdict.summary) lines.push(`| ${code(entry.rule)} | ${SEVERITY_LABEL[entry.severity]} | ${entry.count} |`);
  lines.push("", "| Severity | Rule | Location | Message |", "| --- | --- | --- | --- |");
  for (const violation of verdict.violations.slice(0, MAX_LISTED)) {
    const region = context.locate?.(violation.location);
    const line = region ? ` (${code(`${decodeURIComponent(artifactUri(context.artifactPath))}:${region.startLine}`)})` : "";
    lines.push(`| ${SEVERITY_LABEL[violation.severity]} | ${code(violation.rule)} | ${code(violation.location)}${line} | ${escapeMarkdown(violation.message)} |`);
  }
  const listed = Math.min(MAX_LISTED, verdict.violations.length);
  if (verdict.totalViolations > listed) {
    const where = context.link ? `: [read the full verdict](${encodeURI(context.link)})` : "";
    lines.push("", `The first ${listed} violations are listed here; ${verdict.totalViolations - listed} more are not${where}.`);
  } else if (context.link) {
    lines.push("", `[Full verdict in the Arbiter console](${encodeURI(context.link)})`);
  }
  return lines.join("\n") + "\n";
}

function consequence(subject: ReportSubject, approved: boolean): string {
  if (approved) return "No errors, so it is approved.";
  if (subject === "contract") return "Errors mark the contract not approved; it is stored and active all the same.";
  return `Errors reject ${subjectNoun(subject)}.`;
}

const NO_VIOLATIONS: Record<ReportSubject, string> = {
  snapshot: "The implementation matches the contract: no violations.",
  draft: "The draft matches the contract: no violations.",
  exchanges: "Every recorded exchange matches the contract: no violations.",
  contract: "The contract follows the organization's constitution: no violations.",
  "contract-change": "The new contract version breaks nothing that clients of the previous version rely on.",
};
