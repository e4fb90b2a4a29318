/**
 * Document text for a terminal (the CLI's summaries on stdout and its problem listings on stderr): ESC and CSI
 * (ANSI escape sequences: colours, cursor moves, window titles, hyperlinks), every other control character, CR
 * (which would let a line overwrite itself), bidi overrides and zero-width characters are shown as visible
 * escapes. One line of document text stays one line.
 */
import { visibleControls } from "./controls";

export function terminalText(text: string): string {
  return visibleControls(text, "visible");
}
