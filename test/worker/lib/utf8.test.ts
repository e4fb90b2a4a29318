// decodeUtf8Strict (src/lib/utf8.ts) is the upload path's UTF-8 decoder: in the Workers runtime, the same text as a
// fatal TextDecoder for every valid input (a leading byte-order mark dropped) and null wherever that decoder throws.
import { describe, expect, it } from "vitest";
import { decodeUtf8Strict, utf8JsonAsAscii } from "../../../src/lib/utf8";

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

// utf8JsonAsAscii (src/lib/utf8.ts): the ASCII form a JSON upload is parsed from. Whatever the document, either the
// form is null (the caller decodes the text as it is) or JSON.parse of the form gives what JSON.parse of the decoded
// text gives, the same value or a refusal.
const parseOf = (text: string | null): { value: unknown } | { refused: true } => {
  try {
    return { value: JSON.parse(text!) };
  } catch {
    return { refused: true };
  }
};
const encode = (text: string) => new TextEncoder().encode(text);

// The form, when given, is exactly the decoded text with each non-ASCII UTF-16 code unit escaped.
const escapedText = (text: string) =>
  text.replace(/[^\x00-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);

function expectSameParse(bytes: Uint8Array): string | null {
  const form = utf8JsonAsAscii(bytes);
  if (form !== null) {
    expect(form).toBe(escapedText(decodeUtf8Strict(bytes)!));
    expect(parseOf(form)).toEqual(parseOf(decodeUtf8Strict(bytes)));
  }
  return form;
}

describe("utf8JsonAsAscii", () => {
  it("gives ASCII text as it is, and non-ASCII characters as escapes of their UTF-16 code units", () => {
    expect(utf8JsonAsAscii(encode('{"openapi":"3.1.0"}'))).toBe('{"openapi":"3.1.0"}');
    expect(utf8JsonAsAscii(encode(' \n{"títle":"Ação ✓ 𝄞"}'))).toBe(
      ' \n{"t\\u00edtle":"A\\u00e7\\u00e3o \\u2713 \\ud834\\udd1e"}',
    );
    expect(utf8JsonAsAscii(Uint8Array.of(0xef, 0xbb, 0xbf, ...encode('["é"]')))).toBe('["\\u00e9"]');
  });

  const same: Array<[string, string]> = [
    ["characters in keys and values, at a string's start and end", '{"é":"éa","b":"aé","ü":{"日本":["✓","𝄞𝄞"]}}'],
    ["other escapes beside characters", '{"a":"\\u00e9é\\n✓\\"𝄞"}'],
    ["a character where JSON allows none (between tokens)", '{"a":1 é}'],
    ["a character inside a number", '{"a":1é2}'],
    ["a character inside a \\u escape", '{"a":"\\u00é9"}'],
    ["a byte-order mark after the first byte", '{\ufeff"a":1}'],
    ["a raw line separator inside a string", '{"a":"\u2028"}'],
  ];
  it.each(same)("parses %s exactly as the decoded text", (_what, text) => {
    expect(expectSameParse(encode(text))).not.toBeNull();
  });

  const decoded: Array<[string, Uint8Array]> = [
    ["YAML", encode("openapi: 3.1.0\ninfo: {title: Ação}\n")],
    ["a document that starts with a non-breaking space", encode('\u00a0{"a":"é"}')],
    ["a character right after a backslash (an invalid escape the form would make valid)", encode('{"a":"\\é"}')],
    ["a character after an escaped backslash (the form does not count backslashes)", encode('{"a":"\\\\é"}')],
    ["invalid UTF-8", Uint8Array.of(0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x7d)],
    ["a large document mostly not ASCII", encode(JSON.stringify({ title: "日本語のドキュメント".repeat(3000) }))],
    [
      "more runs of characters than the form takes",
      encode(JSON.stringify(Array.from({ length: 5000 }, () => "a é b".repeat(3)))),
    ],
  ];
  it.each(decoded)("leaves %s to be decoded as it is", (_what, bytes) => {
    expect(utf8JsonAsAscii(bytes)).toBeNull();
  });

  it("finds every run in a large document, wherever the halving cuts it, and in a view of a larger buffer", () => {
    // Characters placed around every power-of-two boundary, so the halving search cuts runs in two.
    const filler = "x".repeat(70_000);
    const value: Record<string, string> = {};
    for (let index = 0; index < 40; index++)
      value[`k${index}ü`] = `${filler.slice(0, (index * 7919) % 70_000)}ü✓𝄞${filler.slice(0, index * 13)}é`;
    const text = JSON.stringify(value, null, 2);
    const bytes = encode(`xx${text}yy`).subarray(2, -2);
    const form = expectSameParse(bytes);
    expect(form).not.toBeNull();
    expect(JSON.parse(form!)).toEqual(value);
  });

  // The runtime's own JSON.parse, on what the form writes: a key with escapes, after objects of the same shape whose key
  // at that place equals the escaped key's first characters as written (the test pool's V8 before 2026-12-06 gave
  // that earlier key instead: docs/development.md).
  it("parses its escaped keys right after objects of the same shape with a backslash in that key", () => {
    const cases = [
      { first: "q", before: String.raw`\\`, key: "é" },
      { first: "r", before: String.raw`a\\u`, key: "aéb" },
    ];
    for (const { first, before, key } of cases) {
      // `before` as written in JSON: the key `\` and `a\u`.
      expect(Object.keys(JSON.parse(`{"${first}":"x","${before}":1}`))[1]).toContain("\\");
      expect(Object.keys(JSON.parse(utf8JsonAsAscii(encode(`{"${first}":"x","${key}":1}`))!))).toEqual([first, key]);
    }
  });

  // Each document's first key is its own (`a0`, `a1`, ...). The V8 of workerd 1.20260815.1 (this suite's runtime until
  // 2026-12-06) misparsed an escaped key when an earlier object of the same shape had, at that place, a key whose
  // characters equal the escaped key's first characters as written: after `{"a":1,"\\":2}`, JSON.parse of
  // `{"a":1,"\u00e9":2}` gave the key `\`. Whether that earlier shape was still known depended on garbage
  // collection, so with one first key for all the test failed now and then (docs/development.md, the test pool).
  it("agrees with the decoded text on generated documents, accepted or refused", () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const pieces = [
      '"',
      "\\",
      "é",
      "✓",
      "𝄞",
      "a",
      " ",
      ":",
      ",",
      "{",
      "}",
      "[",
      "]",
      "1",
      "u",
      "0",
      "\\u00e9",
      "\n",
      "\u2028",
    ];
    let parsedBoth = 0;
    for (let round = 0; round < 2000; round++) {
      const valid = JSON.stringify({
        [`a${round}`]: Array.from({ length: random(6) }, () => pieces[random(pieces.length)]).join(""),
        [pieces[random(pieces.length)]!]: [random(9), "ü"],
      });
      // Half the documents are damaged: a piece inserted at a random place.
      const at = random(valid.length);
      const text = round % 2 === 0 ? valid : `${valid.slice(0, at)}${pieces[random(pieces.length)]}${valid.slice(at)}`;
      const form = expectSameParse(encode(text));
      if (form !== null && "value" in parseOf(form)) parsedBoth++;
    }
    expect(parsedBoth).toBeGreaterThan(1000);
  });
});
