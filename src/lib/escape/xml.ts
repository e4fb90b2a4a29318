/**
 * Document text for XML 1.0 (JUnit reports): characters XML cannot carry are shown as visible escapes instead of
 * being dropped silently, bidi and zero-width characters become visible, and the five specials become entities,
 * so the text is safe in attribute values and character data alike.
 */
import { visibleControls } from "./controls";

export function xmlText(text: string): string {
  return visibleControls(text, "keep")
    .replace(/[\uD800-\uDFFF]/g, (char, offset: number, whole: string) => {
      // A lone surrogate is not a character XML can hold; a pair is one character and stays.
      const code = char.charCodeAt(0);
      const pair = code <= 0xdbff ? whole.charCodeAt(offset + 1) : whole.charCodeAt(offset - 1);
      const paired = code <= 0xdbff ? pair >= 0xdc00 && pair <= 0xdfff : pair >= 0xd800 && pair <= 0xdbff;
      return paired ? char : `\\u${code.toString(16).toUpperCase()}`;
    })
    .replace(/[\uFFFE\uFFFF]/g, (char) => `\\u${char.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\r/g, "&#13;");
}
