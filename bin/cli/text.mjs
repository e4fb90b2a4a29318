// Small text helpers shared by the commands.

export function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** Text from the server made safe for a terminal: no control characters, bounded length. */
export function printable(text, limit = 300) {
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f]/g, " ").slice(0, limit);
}
