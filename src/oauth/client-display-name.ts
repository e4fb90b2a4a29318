/**
 * Client names are chosen by whoever registered the client (Dynamic Client Registration) or published its
 * metadata document (CIMD). HTML escaping keeps markup out, but not Unicode that changes how the text around
 * it reads: a right-to-left override (U+202E) before "moc.elgoog" makes it display as "google.com", and
 * line or zero-width characters can hide part of a name. Every page that shows a client name or id (consent,
 * admin console) takes it from here, so the rule lives in one place.
 */

/** Longest name shown; DCR refuses longer names, CIMD documents are not bounded by us, so cut here too. */
export const MAX_DISPLAYED_NAME = 200;

// Bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), marks (U+200E, U+200F,
// U+061C), and invisible characters that can hide or join text (U+200B, U+2060, U+FEFF). Removed.
const INVISIBLE = /[\u061C\u200B\u200E\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/g;
// C0 and C1 controls, DEL, and the Unicode line and paragraph separators. Replaced by a space.
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/g;

/** The text as it may be displayed: no bidi or control characters, whitespace collapsed, bounded length. */
export function displayText(value: string, maxLength = MAX_DISPLAYED_NAME): string {
  const clean = value.replace(INVISIBLE, "").replace(CONTROL, " ").replace(/\s+/g, " ").trim();
  const chars = [...clean];
  return chars.length > maxLength ? `${chars.slice(0, maxLength).join("")}\u2026` : clean;
}

/** A client's name for display, or undefined when it has none (or nothing printable is left). */
export function displayClientName(name: string | null | undefined): string | undefined {
  if (typeof name !== "string") return undefined;
  return displayText(name) || undefined;
}
