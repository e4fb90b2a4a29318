/**
 * Document text for SARIF `message.text` (GitHub code scanning shows it): SARIF reads "[text](id)" in a plain
 * text message as an embedded link and "{0}" as a placeholder (SARIF 2.1.0, 3.11.5 and 3.11.6), so literal
 * brackets are escaped with a backslash as the standard says, braces are doubled away from placeholders, and
 * controls and bidi characters become visible. JSON encoding does the rest.
 */
import { LINE_BREAK, visibleControls } from "./controls";

export function sarifText(text: string): string {
  return visibleControls(text.replace(LINE_BREAK, " "), "visible")
    .replace(/([\\[\]])/g, "\\$1")
    .replace(/\{(?=\d+\})/g, "{\u200B");
}
