/**
 * Document text for GitHub-flavoured Markdown (pull-request comments, job summaries), checked against what
 * cmark-gfm and GitHub's filters do: every line break (a lone CR too) becomes a space, so text cannot end a table
 * row or start a heading; controls and bidi characters become visible; HTML specials become entities; ASCII
 * punctuation is backslash-escaped, so no emphasis, link, image, heading or table pipe can form; and a zero-width
 * space (as the entity &#8203;) breaks @mentions, "#123"-style references and autolinks (bare URLs, www. and
 * e-mail addresses), which GitHub finds after the Markdown is parsed, where escapes no longer count.
 */
import { LINE_BREAK, visibleControls } from "./controls";

const ZWSP = "&#8203;";
/** Stands for the zero-width space until escaping is done (no NUL survives visibleControls). */
const MARK = "\u0000";

function breakLinks(text: string): string {
  return text
    .replace(/@/g, `@${MARK}`)
    .replace(/([A-Za-z][A-Za-z0-9+.-]*):(?=\/\/)/g, `$1${MARK}:`)
    .replace(/\b(www)\./gi, `$1${MARK}.`)
    .replace(/#(?=\d)/g, `#${MARK}`);
}

/** Text for a paragraph or a table cell. */
export function markdownText(text: string): string {
  const flat = breakLinks(visibleControls(text.replace(LINE_BREAK, " "), "visible"));
  return flat
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/([\\`*_[\]{}()#+\-.!|~:'=$^])/g, "\\$1")
    .replace(/\u0000/g, ZWSP);
}

/**
 * Inline code that cannot be broken out of: line breaks become spaces (a lone CR ended the span and the row),
 * controls become visible, a pipe is escaped for the table (GFM removes that backslash), and the fence is one
 * backtick longer than any run inside. Nothing in a code span is a link, mention or HTML.
 */
export function markdownCode(text: string): string {
  const clean = visibleControls(text.replace(LINE_BREAK, " "), "visible").replace(/\|/g, "\\|");
  const longest = Math.max(0, ...(clean.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = longest > 0 || clean.startsWith(" ") || clean.endsWith(" ") ? " " : "";
  return `${fence}${pad}${clean}${pad}${fence}`;
}

/** Cuts text to at most `max` characters (before escaping), marking the cut. */
export function clipped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
