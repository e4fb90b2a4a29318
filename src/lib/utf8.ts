/**
 * Strict UTF-8 decoding of large uploads. The same text as `new TextDecoder("utf-8", { fatal: true })` (a leading
 * byte-order mark dropped, invalid UTF-8 refused), built differently: the bytes are validated first (`isUtf8`,
 * one vectorised pass) and then decoded by V8 straight into the string (`Buffer#toString`). workerd's TextDecoder
 * converts into a temporary UTF-16 buffer and copies that into the string: for a 13 MB document that is 26 MB of
 * fresh memory per upload whose first touch (page faults) cost 9 to 60 ms more than the decoding itself.
 *
 * A JSON upload can skip even that: `utf8JsonAsAscii` gives the document's text with every non-ASCII character
 * written as a `\uXXXX` escape, which JSON.parse reads as the very same value (why: its comment below), so the text
 * is a one-byte string, copied from the bytes, instead of a two-byte one that one accented letter forces on all
 * 13 MB.
 */
import { Buffer, isAscii, isUtf8 } from "node:buffer";

const BOM = [0xef, 0xbb, 0xbf] as const;

/** `bytes` without a leading byte-order mark, as a Buffer over the same memory (no copy). */
function withoutBom(bytes: Uint8Array): Buffer {
  const start = bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2] ? 3 : 0;
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, bytes.byteLength - start);
}

/** The text of UTF-8 `bytes`, or null when they are not valid UTF-8. */
export function decodeUtf8Strict(bytes: Uint8Array): string | null {
  const view = withoutBom(bytes);
  return isUtf8(view) ? view.toString("utf8") : null;
}

/**
 * How much non-ASCII the ASCII form takes on: past either bound the escapes cost more than the two-byte string
 * they avoid (a document written in Japanese is mostly non-ASCII), and the text is decoded as it is. The share is
 * not checked below SHARE_CHECKED_FROM bytes, where either way costs next to nothing.
 */
const MAX_RUNS = 4096;
const MAX_NON_ASCII_SHARE = 1 / 8;
const SHARE_CHECKED_FROM = 64 * 1024;
/** Below this many bytes a stretch is scanned byte by byte instead of halved again. */
const LEAF_BYTES = 512;

const BACKSLASH = 0x5c;
const isJsonWhitespace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * The runs of non-ASCII bytes in `view` as [start, end) pairs, in order, or null past MAX_RUNS. Stretches that are
 * all ASCII are found by `isAscii` (native and vectorised) on halves, so a document with a few dozen accented
 * letters costs a few passes of that instead of a JavaScript loop over every byte.
 */
function nonAsciiRuns(view: Buffer): number[] | null {
  const runs: number[] = [];
  const visit = (start: number, end: number): boolean => {
    if (start >= end || isAscii(view.subarray(start, end))) return true;
    if (end - start > LEAF_BYTES) {
      const middle = (start + end) >>> 1;
      return visit(start, middle) && visit(middle, end);
    }
    for (let index = start; index < end; index++) {
      if (view[index]! < 0x80) continue;
      // A run cut by a halving boundary continues the previous one.
      if (runs.length > 0 && runs[runs.length - 1] === index) runs[runs.length - 1] = index + 1;
      else {
        if (runs.length >= 2 * MAX_RUNS) return false;
        runs.push(index, index + 1);
      }
    }
    return true;
  };
  return visit(0, view.byteLength) ? runs : null;
}

const escapeUnit = (unit: number): string => `\\u${unit.toString(16).padStart(4, "0")}`;

/**
 * The `\uXXXX` escapes of the UTF-16 code units of `view[start, end)`, bytes already known to be valid UTF-8 (so no
 * check is repeated here). A run is a few bytes: decoding it here builds its escapes directly, without a string per
 * run to walk again.
 */
function escapeRun(view: Buffer, start: number, end: number): string {
  let out = "";
  let index = start;
  while (index < end) {
    const lead = view[index]!;
    let point: number;
    if (lead < 0xe0) {
      point = ((lead & 0x1f) << 6) | (view[index + 1]! & 0x3f);
      index += 2;
    } else if (lead < 0xf0) {
      point = ((lead & 0x0f) << 12) | ((view[index + 1]! & 0x3f) << 6) | (view[index + 2]! & 0x3f);
      index += 3;
    } else {
      point =
        ((lead & 0x07) << 18) |
        ((view[index + 1]! & 0x3f) << 12) |
        ((view[index + 2]! & 0x3f) << 6) |
        (view[index + 3]! & 0x3f);
      index += 4;
    }
    if (point < 0x10000) out += escapeUnit(point);
    else out += escapeUnit(0xd800 + ((point - 0x10000) >> 10)) + escapeUnit(0xdc00 + ((point - 0x10000) & 0x3ff));
  }
  return out;
}

/**
 * The text of the UTF-8 JSON document `bytes` in ASCII form, for JSON.parse only: every run of non-ASCII characters
 * written as `\uXXXX` escapes of its UTF-16 code units. JSON allows non-ASCII characters only inside strings, where
 * such an escape means the same code unit (a surrogate pair for characters above U+FFFF), so JSON.parse gives the
 * same value for this text as for the decoded one, and fails where that one fails (outside a string, a backslash is
 * no more valid than the character was). Where that argument does not hold, or the form would not pay, the result
 * is null and the caller decodes the text as it is (decodeUtf8Strict):
 *  - the bytes are not valid UTF-8 (the caller refuses them then);
 *  - the first byte after JSON whitespace is not `{` or `[`: YAML, where characters outside quotes are text, or a
 *    document that is not JSON at all;
 *  - a run follows a backslash: `\é` is an invalid escape, while `\\u00e9` would be a valid one;
 *  - too many runs, or in a large document too many non-ASCII bytes (MAX_RUNS, MAX_NON_ASCII_SHARE).
 * Error positions in JSON.parse's messages are positions in this text, not the document's: a caller that reports
 * them parses the decoded text again for its message.
 */
export function utf8JsonAsAscii(bytes: Uint8Array): string | null {
  const view = withoutBom(bytes);
  let first = 0;
  while (first < view.byteLength && isJsonWhitespace(view[first]!)) first++;
  if (view[first] !== 0x7b && view[first] !== 0x5b) return null;
  if (!isUtf8(view)) return null;
  const runs = nonAsciiRuns(view);
  if (runs === null) return null;
  if (runs.length === 0) return view.toString("latin1");
  let nonAscii = 0;
  for (let index = 0; index < runs.length; index += 2) {
    if (view[runs[index]! - 1] === BACKSLASH) return null;
    nonAscii += runs[index + 1]! - runs[index]!;
  }
  if (view.byteLength >= SHARE_CHECKED_FROM && nonAscii > view.byteLength * MAX_NON_ASCII_SHARE) return null;
  const parts: string[] = [];
  let at = 0;
  for (let index = 0; index < runs.length; index += 2) {
    const start = runs[index]!;
    const end = runs[index + 1]!;
    parts.push(view.toString("latin1", at, start), escapeRun(view, start, end));
    at = end;
  }
  parts.push(view.toString("latin1", at, view.byteLength));
  return parts.join("");
}
