/**
 * Characters a document can use to take over whatever shows its text: C0 and C1 controls (ANSI escape sequences
 * start with ESC or CSI), DEL, bidirectional overrides, embeddings, isolates and marks (they reorder what a
 * reader sees: "Trojan Source"), zero-width characters and the Unicode line and paragraph separators. Each is
 * replaced by a visible escape such as "\x1B" or "\u202E", so a reader sees that it was there.
 * Every consumer module (markdown.ts, workflow-command.ts, xml.ts, sarif.ts, terminal.ts, and the HTML escape)
 * starts from this one.
 */

const HIDDEN =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]/g;
const HIDDEN_AND_BREAKS = /[\u0000-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code === 0x0a) return "\\n";
  if (code === 0x0d) return "\\r";
  if (code === 0x09) return "\\t";
  return code <= 0xff
    ? `\\x${code.toString(16).toUpperCase().padStart(2, "0")}`
    : `\\u${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * `lineBreaks`: "keep" leaves tab, LF and CR as they are (for consumers where they are harmless, such as
 * HTML); "visible" shows them as \t, \n, \r too (for one-line consumers).
 */
export function visibleControls(text: string, lineBreaks: "keep" | "visible" = "visible"): string {
  return text.replace(lineBreaks === "keep" ? HIDDEN : HIDDEN_AND_BREAKS, visible);
}

/** Lone CR, CRLF, LF and the Unicode separators, the ways a text can end a line. */
export const LINE_BREAK = /\r\n|[\r\n\u2028\u2029\u0085]/g;
