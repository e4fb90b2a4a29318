// decodeUtf8Strict (src/lib/utf8.ts) is the upload path's UTF-8 decoder: in the Workers runtime, the same text as a
// fatal TextDecoder for every valid input (a leading byte-order mark dropped) and null wherever that decoder throws.
import { describe, expect, it } from "vitest";
import { decodeUtf8Strict } from "../../../src/lib/utf8";

const fatal = (bytes: Uint8Array): string | null => {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
};

const valid: Array<[string, Uint8Array]> = [
  ["ASCII", new TextEncoder().encode('{"openapi":"3.1.0"}')],
  ["two-, three- and four-byte characters", new TextEncoder().encode('{"title":"Ação ✓ 𝄞 日本"}')],
  ["a leading byte-order mark (dropped)", Uint8Array.of(0xef, 0xbb, 0xbf, 0x7b, 0x7d)],
  ["a byte-order mark later on (kept)", Uint8Array.of(0x7b, 0xef, 0xbb, 0xbf, 0x7d)],
  ["only a byte-order mark", Uint8Array.of(0xef, 0xbb, 0xbf)],
  ["nothing", new Uint8Array(0)],
];

const invalid: Array<[string, Uint8Array]> = [
  ["a lone continuation byte", Uint8Array.of(0x7b, 0x80, 0x7d)],
  ["a sequence cut at the end", Uint8Array.of(0x7b, 0xe2, 0x9c)],
  ["an overlong encoding of '/'", Uint8Array.of(0xc0, 0xaf)],
  ["an encoded surrogate (CESU-8)", Uint8Array.of(0xed, 0xa0, 0x80)],
  ["a code point above U+10FFFF", Uint8Array.of(0xf4, 0x90, 0x80, 0x80)],
  ["a byte that never occurs in UTF-8", Uint8Array.of(0xff, 0x7b, 0x7d)],
];

describe("decodeUtf8Strict", () => {
  it.each(valid)("decodes %s exactly as a fatal TextDecoder", (_what, bytes) => {
    expect(fatal(bytes)).not.toBeNull();
    expect(decodeUtf8Strict(bytes)).toBe(fatal(bytes));
  });

  it.each(invalid)("refuses %s where a fatal TextDecoder throws", (_what, bytes) => {
    expect(fatal(bytes)).toBeNull();
    expect(decodeUtf8Strict(bytes)).toBeNull();
  });

  it("decodes a view of a larger buffer by its own bytes only", () => {
    const buffer = new TextEncoder().encode('xx{"a":"ü"}yy');
    expect(decodeUtf8Strict(buffer.subarray(2, buffer.byteLength - 2))).toBe('{"a":"ü"}');
  });
});
