// Text from documents and from the server, made safe for where the CLI writes it: a terminal (ANSI escape
// sequences, CR, bidi overrides and zero-width characters are shown as visible escapes such as \x1B or \u202E,
// never obeyed) and a CI log that a runner reads (no line may start a workflow command such as ::add-mask::,
// ::stop-commands:: or a forged ::error, nor the older ##[...] form). The server's formats escape for their own
// consumers (src/lib/escape/); this is the CLI's own output: summaries on stdout, problem listings on stderr.

const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

function visible(char) {
  const code = char.charCodeAt(0);
  if (code === 0x0a) return "\\n";
  if (code === 0x0d) return "\\r";
  if (code === 0x09) return "\\t";
  return code <= 0xff
    ? `\\x${code.toString(16).toUpperCase().padStart(2, "0")}`
    : `\\u${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** One field of document or server text: stays on one line, every control and bidi character visible. */
export function terminalText(text) {
  return String(text).replace(HIDDEN, visible);
}

/** A line the CLI composed: one that would start a workflow command starts with a visible mark instead. */
export function logLine(line) {
  return /^\s*(::|##\[)/.test(line) ? `\u203A ${line}` : line;
}

/** Text the CLI composed of several lines (its own line breaks), each line guarded. */
export function logLines(text) {
  return String(text).split("\n").map(logLine).join("\n");
}
