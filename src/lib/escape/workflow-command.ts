/**
 * Document text for GitHub Actions workflow commands (https://docs.github.com/actions/reference/workflow-commands-
 * for-github-actions): the runner reads a line that starts with "::" (or the older "##[") as a command, so no
 * document text may reach the start of a line. Data escapes %, CR and LF as the runner decodes them; properties
 * also escape ":" and ",". `logLine` guards any line written to a log a runner reads (the CLI's summaries).
 */
import { visibleControls } from "./controls";

/** The message part of a command: `::error title=...::<data>`. */
export function workflowData(text: string): string {
  return visibleControls(text, "keep")
    .replace(/%/g, "%25")
    .replace(/\r/g, "%0D")
    .replace(/\n/g, "%0A")
    .replace(/[\u0085\u2028\u2029]/g, " ");
}

/** A property value: `title=<property>`. */
export function workflowProperty(text: string): string {
  return workflowData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * One line of plain output (not a command) that a runner will read: line breaks inside become visible, and a
 * line that would start a command ("::", "##[" after any white space) starts with a visible mark instead.
 */
export function logLine(line: string): string {
  const single = visibleControls(line, "visible");
  return /^\s*(::|##\[)/.test(single) ? `\u203A ${single}` : single;
}
