/**
 * A verdict as Markdown, for a pull-request comment or a CI summary. Everything from documents (paths, messages,
 * names) goes through src/lib/escape/markdown.ts, so a document cannot add Markdown, HTML, mentions or links to
 * the comment; and the report stays under GitHub's comment limit, listing what fits and linking the rest.
 */
import { clipped, markdownCode, markdownText } from "../../lib/escape/markdown";
import type { ViolationLocator } from "./source-positions";
import { artifactUri } from "./sarif";
import { subjectNoun, type ReportSubject } from "./report";
import { describeAcceptance } from "../verdict/acceptance";
import { describeUsage } from "../verdict/usage";
import type { Severity, Verdict, Violation } from "../types";

/**
 * A finding's message with what formats add to it: its use in recorded traffic ("is this break used?") and, for an
 * accepted break, who accepted it, why and until when.
 */
export function messageOf(violation: Violation): string {
  const notes: string[] = [];
  if (violation.usage) notes.push(describeUsage(violation.location.split("#")[0] ?? "", violation.usage));
  if (violation.acceptance) notes.push(describeAcceptance(violation.acceptance));
  return notes.length === 0 ? violation.message : `${violation.message} (${notes.join("; ")})`;
}

const SEVERITY_LABEL: Record<Severity, string> = {
  error: "Error",
  warning: "Warning",
  info: "Info",
  accepted: "Accepted",
};
const MAX_LISTED = 200;

/** The listing stops before the report would pass this size: GitHub refuses comments over 65,536 characters. */
export const MAX_MARKDOWN_CHARS = 60_000;
/** Longest location and message shown in one row (the full text is in the JSON verdict). */
const MAX_CELL = 400;

const code = (text: string) => markdownCode(clipped(text, MAX_CELL));

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
  const outcome = verdict.approved ? "✅ Approved" : "❌ Rejected";
  const heading =
    subject === "contract-change"
      ? "Arbiter contract changelog"
      : subject === "contract"
        ? "Arbiter constitution check of the contract"
        : "Arbiter conformance";
  lines.push(`## ${heading}: ${outcome}`, "");
  const facts = [`Project: ${code(context.project)}`];
  if (context.contractVersion) facts.push(`contract ${code(context.contractVersion)}`);
  if (context.title) facts.push(code(context.title));
  else if (context.snapshot) facts.push(`snapshot ${code(context.snapshot)}`);
  lines.push(facts.join(" · "), "");
  if (verdict.totalViolations === 0) {
    lines.push(NO_VIOLATIONS[subject]);
    return `${lines.join("\n")}\n`;
  }
  // Counts come from the summary: the listing keeps at most a few hundred violations per rule, the summary all.
  const counts = { error: 0, warning: 0, info: 0, accepted: 0 };
  for (const entry of verdict.summary) counts[entry.severity] += entry.count;
  const parts = [plural(counts.error, "error"), plural(counts.warning, "warning"), `${counts.info} info`];
  if (counts.accepted > 0) parts.push(`${counts.accepted} accepted`);
  lines.push(
    `${plural(verdict.totalViolations, "violation")}: ${parts.join(", ")}. ${consequence(subject, verdict.approved)}`,
    "",
  );
  lines.push("| Rule | Severity | Count |", "| --- | --- | ---: |");
  for (const entry of verdict.summary)
    lines.push(`| ${code(entry.rule)} | ${SEVERITY_LABEL[entry.severity]} | ${entry.count} |`);
  lines.push("", "| Severity | Rule | Location | Message |", "| --- | --- | --- | --- |");
  let size = lines.reduce((sum, line) => sum + line.length + 1, 0);
  let listed = 0;
  for (const violation of verdict.violations.slice(0, MAX_LISTED)) {
    const region = context.locate?.(violation.location);
    const line = region
      ? ` (${code(`${decodeURIComponent(artifactUri(context.artifactPath))}:${region.startLine}`)})`
      : "";
    const row = `| ${SEVERITY_LABEL[violation.severity]} | ${code(violation.rule)} | ${code(violation.location)}${line} | ${markdownText(clipped(messageOf(violation), MAX_CELL))} |`;
    // Room is kept for the closing paragraph (a few hundred characters with the link).
    if (size + row.length + 1 > MAX_MARKDOWN_CHARS - 1000) break;
    lines.push(row);
    size += row.length + 1;
    listed++;
  }
  const link = context.link ? encodeURI(context.link).replace(/\(/g, "%28").replace(/\)/g, "%29") : undefined;
  if (verdict.totalViolations > listed) {
    const where = link ? `: [read the full verdict](${link})` : " (the JSON verdict lists them)";
    lines.push(
      "",
      `The first ${listed} violations are listed here; ${verdict.totalViolations - listed} more are not${where}.`,
    );
  } else if (link) {
    lines.push("", `[Full verdict in the Arbiter console](${link})`);
  }
  return `${lines.join("\n")}\n`;
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
