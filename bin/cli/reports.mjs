// The verdict as a readable summary and in the server-rendered formats (--format, --out-<fmt>).
import { writeFileSync } from "node:fs";
import { fail } from "./errors.mjs";
import { logLines, terminalText } from "./safe-text.mjs";
import { repositoryPath } from "./repository.mjs";
import { plural } from "./text.mjs";

/** How often recorded traffic exercised what a break touches (the server's usage index). */
function usageLine(u) {
  if (!u) return "";
  if (u.exchanges === 0) return `\n          usage: never seen in the recorded traffic of the last ${u.days} days`;
  const touched = u.touched ? `, ${u.touched.count} of them ${terminalText(u.touched.what)}` : "";
  return `\n          usage: ${u.exchanges} recorded exchange${u.exchanges === 1 ? "" : "s"} in the last ${u.days} days${touched}`;
}

/** An error's fingerprint (what "arbiter breaks accept" takes), an accepted break's acceptance, and their usage. */
function detail(v) {
  return usageLine(v.usage) + acceptanceLine(v);
}

function acceptanceLine(v) {
  if (v.acceptance)
    return `\n          accepted by ${terminalText(v.acceptance.owner)} until ${terminalText(v.acceptance.expiresAt)}: ${terminalText(v.acceptance.reason)} (${terminalText(v.acceptance.id)})`;
  return v.severity === "error" && v.fingerprint ? `\n          fingerprint ${terminalText(v.fingerprint)}` : "";
}

export function summaryText(heading, verdict, limit = 50) {
  const violations = verdict.violations ?? [];
  const counts = { error: 0, warning: 0, info: 0, accepted: 0 };
  // The server lists at most 500 violations per rule; its summary and totalViolations count all of them.
  if (Array.isArray(verdict.summary) && verdict.summary.length > 0)
    for (const s of verdict.summary) counts[s.severity] = (counts[s.severity] ?? 0) + s.count;
  else for (const v of violations) counts[v.severity] = (counts[v.severity] ?? 0) + 1;
  const total = Math.max(violations.length, typeof verdict.totalViolations === "number" ? verdict.totalViolations : 0);
  // Headings name files, labels and commits; violations quote documents: every field is shown, never obeyed.
  const lines = [
    `${terminalText(heading)}: ${verdict.approved ? "APPROVED" : "REJECTED"}`,
    `  ${plural(counts.error, "error")}, ${plural(counts.warning, "warning")}, ${counts.info} info${counts.accepted ? `, ${counts.accepted} accepted` : ""}`,
  ];
  const shown = violations.slice(0, limit);
  for (const v of shown)
    lines.push(
      `  ${terminalText(v.severity).toUpperCase().padEnd(7)} ${terminalText(v.rule)}  ${terminalText(v.location)}\n          ${terminalText(v.message)}${detail(v)}`,
    );
  if (total > shown.length) lines.push(`  ... and ${total - shown.length} more (see the JUnit or Markdown report)`);
  return logLines(lines.join("\n"));
}

export function write(path, text, what) {
  try {
    writeFileSync(path, text);
  } catch (error) {
    fail(`Cannot write the ${what} to ${path}: ${error.message}`);
  }
}

const FORMATS = ["json", "markdown", "junit", "sarif", "github"];

/** Which formats to print and to write: --format, --out-<fmt>, and the older --junit/--markdown/--json. */
export function reportChoice(values) {
  const files = {};
  for (const format of FORMATS) if (values[`out-${format}`]) files[format] = values[`out-${format}`];
  for (const format of ["junit", "markdown", "json"])
    if (values[format] && !files[format]) files[format] = values[format];
  if (values.format !== undefined && !FORMATS.includes(values.format))
    fail(`--format ${values.format} is not one of ${FORMATS.join(", ")}.`);
  const wanted = new Set(Object.keys(files));
  if (values.format) wanted.add(values.format);
  wanted.delete("json");
  return { files, print: values.format, formats: [...wanted] };
}

/** The query members that ask the server to render the reports (one round trip for every format). */
export function reportQuery(choice, values, file) {
  const artifact = values.artifact ?? repositoryPath(file);
  return { ...(choice.formats.length ? { formats: choice.formats.join(",") } : {}), ...(artifact ? { artifact } : {}) };
}

function reportText(format, answer) {
  if (format === "json") return `${JSON.stringify(answer, null, 2)}\n`;
  const report = answer.reports?.[format];
  if (report === undefined) fail(`The server sent no ${format} report: it may be older than this CLI.`);
  return typeof report === "string" ? report : `${JSON.stringify(report, null, 2)}\n`;
}

/** Prints the summary (or --format) and writes each --out-<fmt> file. */
export function deliver(choice, heading, answer, out) {
  out(choice.print ? reportText(choice.print, answer).trimEnd() : summaryText(heading, answer.verdict));
  for (const [format, path] of Object.entries(choice.files))
    write(path, reportText(format, answer), `${format} report`);
}
