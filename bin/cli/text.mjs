// Small text helpers shared by the commands.
import { terminalText } from "./safe-text.mjs";

export function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** Text from the server made safe for a terminal (safe-text.mjs), bounded length. */
export function printable(text, limit = 300) {
  return terminalText(String(text).slice(0, limit));
}
