/**
 * A verdict as GitHub Actions workflow commands: one `::error` per error (warnings and infos as `::warning` and
 * `::notice`, accepted breaks as `::notice` naming their acceptance), capped so a huge verdict cannot flood the log, then a summary line. Messages and titles are
 * escaped as the runner requires, so document text cannot inject a command of its own.
 * https://docs.github.com/actions/reference/workflow-commands-for-github-actions
 */
import { workflowData, workflowProperty } from "../../lib/escape/workflow-command";
import { messageOf } from "./markdown";
import type { Severity } from "../types";
import type { VerdictReport } from "./report";
import { artifactUri } from "./sarif";

/** GitHub shows at most 10 error and 10 warning annotations per step; a few more lines still help the log. */
export const MAX_WORKFLOW_COMMANDS = 50;

const COMMAND: Record<Severity, string> = { error: "error", warning: "warning", info: "notice", accepted: "notice" };

export function renderGithubActions(report: VerdictReport): string {
  const { verdict } = report;
  const lines: string[] = [];
  const listed = verdict.violations.slice(0, MAX_WORKFLOW_COMMANDS);
  // The same file and line as the SARIF results, so the annotation sits on the line that broke the contract.
  const file = report.locate ? artifactUri(report.artifactPath) : undefined;
  for (const violation of listed) {
    const title = `${violation.severity === "accepted" ? "accepted: " : ""}${violation.rule} at ${violation.location}`;
    const region = report.locate?.(violation.location);
    const where =
      file && region
        ? `file=${workflowProperty(decodeURIComponent(file))},line=${region.startLine},col=${region.startColumn},`
        : "";
    lines.push(
      `::${COMMAND[violation.severity]} ${where}title=${workflowProperty(title)}::${workflowData(messageOf(violation))}`,
    );
  }
  const errors = verdict.violations.filter((violation) => violation.severity === "error").length;
  const outcome = verdict.approved ? "approved" : "rejected";
  const more =
    verdict.violations.length > listed.length
      ? `; ${verdict.violations.length - listed.length} more not shown here`
      : "";
  const where = report.link ? ` Full verdict: ${report.link}` : "";
  const summary = `Arbiter ${report.project}: ${report.title} ${outcome} with ${verdict.totalViolations} violation${verdict.totalViolations === 1 ? "" : "s"} (${errors} error${errors === 1 ? "" : "s"})${more}.${where}`;
  lines.push(`::${verdict.approved ? "notice" : "error"} title=Arbiter verdict::${workflowData(summary)}`);
  return `${lines.join("\n")}\n`;
}
