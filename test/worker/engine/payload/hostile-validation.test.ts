/**
 * Issue 22, "No request may stall the Worker": the four worst cases (bench/hostile-cases.ts) answer at once, the
 * pattern engine keeps ECMA-262's meaning or refuses what it cannot run, uniqueItems is exact, and an exhausted
 * work budget is a "cannot verify" answer naming the limit. The `timeout` on the first tests only guards against
 * the stall they cover (the engine before the change ran for minutes); they assert results, not timings.
 */
import { describe, expect, it } from "vitest";
import { parseExchanges } from "../../../../src/engine/exchanges/parse";
import { createExchangeValidator } from "../../../../src/engine/exchanges/validate";
import { createPayloadValidator } from "../../../../src/engine/payload/payload";
import { unsafePatternProblems } from "../../../../src/engine/load/pattern-check";
import { compilePattern, patternProblem } from "../../../../src/engine/load/safe-pattern";
import { matchSegment, parseSegmentTemplate } from "../../../../src/engine/normalize/segment-template";
import type { OpenApiDocument } from "../../../../src/engine/types";
import {
  UPLOAD_SECONDS,
  UPLOAD_WORK_UNITS,
  VALUE_WORK_UNITS,
  WorkBudgetExhausted,
} from "../../../../src/engine/payload/work-budget";
import { HOSTILE_CASES, ndjsonOf } from "../../../../bench/hostile-cases";

const GUARD = { timeout: 10_000 };

function stringContract(schema: unknown): OpenApiDocument {
  return {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/v": { get: { responses: { "200": { description: "ok", content: { "application/json": { schema } } } } } },
    },
  } as unknown as OpenApiDocument;
}

function payload(document: OpenApiDocument, value: unknown, path = "/v") {
  return createPayloadValidator().validate(document, `key-${Math.random()}`, {
    method: "GET",
    path,
    status: 200,
    payload: value,
  });
}

describe("the four worst cases of issue 22", () => {
  const [uniqueItems, nested, packed, wide] = HOSTILE_CASES.map((build) => build());

  it(
    "uniqueItems over 40,000 distinct integers is approved and a duplicate found; over 160,000 it is 'cannot verify' within one value's budget",
    GUARD,
    () => {
      const document = uniqueItems!.contract as unknown as OpenApiDocument;
      const numbers = (uniqueItems!.payload.payload as number[]).slice(0, 40_000);
      expect(payload(document, numbers, "/numbers")).toMatchObject({ approved: true, errors: [] });
      expect(payload(document, [7, ...numbers], "/numbers").errors).toEqual([
        expect.objectContaining({ keyword: "uniqueItems", pointer: "" }),
      ]);
      // A value is validated in one go, so it may hold the isolate only for its budget (VALUE_WORK_UNITS).
      expect(payload(document, uniqueItems!.payload.payload, "/numbers").violations).toEqual([
        expect.objectContaining({ rule: "work-budget-exhausted" }),
      ]);
    },
  );

  it("^(a+)+$ against 31 a's and a '!' is a pattern error, from the payload tool and from traffic", GUARD, () => {
    const document = nested!.contract as unknown as OpenApiDocument;
    expect(payload(document, nested!.payload.payload, "/names").errors).toEqual([
      { pointer: "/name", keyword: "pattern", message: "String does not match pattern." },
    ]);
    const parsed = parseExchanges(ndjsonOf(nested!.exchanges), "application/x-ndjson");
    if (!parsed.ok) throw new Error("fixture");
    expect(createExchangeValidator().validate(document, "k", parsed.exchanges).summary).toEqual([
      { rule: "response-invalid", severity: "error", count: 1 },
    ]);
  });

  it("twelve parameters in one segment: a path that fits binds all twelve, one that does not is refused", GUARD, () => {
    const document = packed!.contract as unknown as OpenApiDocument;
    const fits = createPayloadValidator().validate(document, "k", {
      method: "GET",
      path: `/files/${"x".repeat(60)}.json`,
      status: 200,
      payload: {},
    });
    expect(fits).toMatchObject({ approved: true, operation: expect.stringMatching(/^GET \/files\/\{p0\}/) });
    const refused = createPayloadValidator().validate(document, "k", packed!.payload);
    expect(refused.violations.map((violation) => violation.rule)).toEqual(["undocumented-operation"]);
    const template = parseSegmentTemplate("{a}-{b}.{c}");
    expect(matchSegment(template, "x-y-z.tar.gz")).toEqual(["x", "y-z", "tar.gz"]);
    expect(matchSegment(parseSegmentTemplate("{a}{b}{c}"), "abcd")).toEqual(["a", "b", "cd"]);
    expect(matchSegment(parseSegmentTemplate("{a}{b}{c}"), "ab")).toBeUndefined();
  });

  it(
    "5,000 exchanges against a 20-way oneOf, validated without yielding, stop at the upload's work budget, naming the limit",
    GUARD,
    () => {
      const parsed = parseExchanges(ndjsonOf(wide!.exchanges), "application/x-ndjson");
      if (!parsed.ok) throw new Error("fixture");
      let thrown: unknown;
      try {
        createExchangeValidator().validate(wide!.contract as unknown as OpenApiDocument, "k", parsed.exchanges);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(WorkBudgetExhausted);
      expect((thrown as Error).message).toContain(
        `more than ${UPLOAD_WORK_UNITS.toLocaleString("en-US")} work units, the limit per upload`,
      );
    },
  );

  it(
    "validated as uploads are, in slices that yield, an upload is bounded by time read across the yields, naming the limit",
    GUARD,
    async () => {
      const parsed = parseExchanges(ndjsonOf(wide!.exchanges.slice(0, 200)), "application/x-ndjson");
      if (!parsed.ok) throw new Error("fixture");
      // Each pause lets the clock move on by the upload's whole limit: the first slice after a yield is over time.
      let clock = Date.now();
      const realNow = Date.now;
      Date.now = () => clock;
      let pauses = 0;
      let thrown: unknown;
      try {
        await createExchangeValidator().validateYielding(
          wide!.contract as unknown as OpenApiDocument,
          "k-time",
          parsed.exchanges,
          async () => {
            pauses++;
            clock += (UPLOAD_SECONDS + 1) * 1000;
          },
        );
      } catch (error) {
        thrown = error;
      } finally {
        Date.now = realNow;
      }
      expect(pauses).toBe(1);
      expect(thrown).toBeInstanceOf(WorkBudgetExhausted);
      expect((thrown as Error).message).toBe(
        `validating this upload takes longer than ${UPLOAD_SECONDS} s, the limit per upload, so it cannot be verified: split the recording into smaller uploads`,
      );
    },
  );
});

describe("work charged before or as it is done (issue 37): each costly keyword is 'cannot verify' within one value's budget", () => {
  const [, , , , bigProgram, dependent, patternProps, required] = HOSTILE_CASES.map((build) => build());
  for (const hostile of [bigProgram, dependent, patternProps, required]) {
    it(
      `${hostile!.name}: the payload tool says cannot verify; traffic reports that part and checks the rest`,
      GUARD,
      () => {
        const document = hostile!.contract as unknown as OpenApiDocument;
        expect(payload(document, hostile!.payload.payload, "/thing").violations).toEqual([
          expect.objectContaining({
            rule: "work-budget-exhausted",
            message: expect.stringContaining(
              `more than ${VALUE_WORK_UNITS.toLocaleString("en-US")} work units, the limit per value`,
            ),
          }),
        ]);
        // The same exchange twice, and one that is cheap: the costly ones are findings, the cheap one is checked.
        const cheap = { ...hostile!.exchanges[0]!, path: "/nowhere" };
        const parsed = parseExchanges(
          ndjsonOf([hostile!.exchanges[0]!, hostile!.exchanges[0]!, cheap]),
          "application/x-ndjson",
        );
        if (!parsed.ok) throw new Error("fixture");
        const verdict = createExchangeValidator().validate(document, `k-${hostile!.name}`, parsed.exchanges);
        expect(verdict.summary).toEqual([
          { rule: "undocumented-operation", severity: "error", count: 1 },
          { rule: "work-budget-exhausted", severity: "warning", count: 2 },
        ]);
      },
    );
  }

  it("an ordinary pattern costs about a unit per character; one that compiles to a large RE2 program costs in proportion", () => {
    const ordinary = stringContract({ type: "string", pattern: "^[a-z]+$" });
    expect(payload(ordinary, "a".repeat(60_000)).approved).toBe(true);
    const large = stringContract({ type: "string", pattern: "[a-z]{1,999}0" });
    expect(payload(large, "a".repeat(60_000)).violations).toEqual([
      expect.objectContaining({ rule: "work-budget-exhausted" }),
    ]);
  });
});

describe("contract patterns on RE2", () => {
  const matches = (pattern: string, text: string) => {
    const compiled = compilePattern(pattern);
    if (typeof compiled === "string") throw new Error(compiled);
    return compiled.test(text);
  };

  it("keeps ECMA-262's meaning where RE2's differs", () => {
    expect(matches("^.$", "\n")).toBe(false);
    expect(matches("^.$", "\u2028")).toBe(false);
    expect(matches("^.$", "😀")).toBe(true);
    expect(matches("^\\s$", "\u00a0")).toBe(true);
    expect(matches("^\\S+$", "a\u3000")).toBe(false);
    expect(matches("^[^]$", "\n")).toBe(true);
    expect(matches("[]", "anything")).toBe(false);
    expect(matches("^\\u00e9\\u{1F600}\\uD83D\\uDE00$", "é😀😀")).toBe(true);
    expect(matches("^(?<year>\\d{4})-\\d{2}$", "2026-12")).toBe(true);
    expect(matches("^[[:a]+$", "[:a")).toBe(true);
    expect(matches("^\\p{Script=Greek}+$", "αβ")).toBe(true);
    expect(matches("^[\\b]$", "\b")).toBe(true);
    expect(matches("^a\\/b\\.c$", "a/b.c")).toBe(true);
  });

  it("refuses what no linear-time engine runs, naming the pattern", () => {
    expect(patternProblem("^(?=a)a$")).toBe('pattern "^(?=a)a$": lookahead (?= or (?! cannot run in linear time');
    expect(patternProblem("(a)\\1")).toContain("backreference");
    expect(patternProblem("(?<!x)y")).toContain("lookbehind");
    expect(patternProblem("a{2000}")).toContain("RE2 refuses it");
    expect(patternProblem("[")).toContain("not a valid ECMA-262 regular expression");
    expect(patternProblem("^[a-z]+$")).toBeUndefined();
  });

  it("refuses binary Unicode properties and keeps general categories and scripts, as docs/security.md says", () => {
    expect(patternProblem("^\\p{Alphabetic}+$")).toContain("the binary Unicode property \\p{Alphabetic}");
    expect(patternProblem("\\P{Emoji}")).toContain("binary Unicode property");
    expect(patternProblem("\\p{gc=Alphabetic}")).toContain("not a valid ECMA-262 regular expression");
    for (const accepted of [
      "^\\p{Lu}+$",
      "^\\p{Letter}+$",
      "^\\p{gc=Nd}+$",
      "^\\p{General_Category=Decimal_Number}$",
      "^\\p{Script=Greek}+$",
      "^\\p{sc=Latin}$",
    ]) {
      expect(patternProblem(accepted), accepted).toBeUndefined();
    }
  });

  it("refuses at upload a patternProperties key with more than one quantifier, naming it and its place", () => {
    const document = stringContract({
      type: "object",
      patternProperties: { "^x-[a-z]+$": { type: "string" }, "^[a-z]+_[0-9]+$": { type: "string" } },
    });
    expect(unsafePatternProblems(document)).toEqual([
      {
        path: "/paths/~1v/get/responses/200/content/application~1json/schema/patternProperties/^[a-z]+_[0-9]+$",
        message: expect.stringContaining(
          'patternProperties pattern "^[a-z]+_[0-9]+$": more than one quantifier is not supported',
        ),
      },
    ]);
  });

  it("a contract upload names each refused pattern with its place; examples are data and not read", () => {
    const document = stringContract({
      type: "object",
      properties: { code: { type: "string", pattern: "^(?!x)\\w+$" } },
      example: { pattern: "(?=nope)" },
    });
    expect(unsafePatternProblems(document)).toEqual([
      {
        path: "/paths/~1v/get/responses/200/content/application~1json/schema/properties/code/pattern",
        message: expect.stringContaining('pattern "^(?!x)\\\\w+$": lookahead'),
      },
    ]);
  });

  it("a stored contract with such a pattern answers schema-unusable naming it, not a verdict", () => {
    const result = payload(stringContract({ type: "string", pattern: "(a)\\1" }), "aa");
    expect(result.violations).toEqual([
      expect.objectContaining({ rule: "schema-unusable", message: expect.stringContaining('pattern "(a)\\\\1"') }),
    ]);
  });
});

describe("uniqueItems and budgets", () => {
  it('uniqueItems compares by JSON value: key order does not matter, 1 and 1.0 are equal, "1" and 1 are not', () => {
    const document = stringContract({ type: "array", uniqueItems: true });
    expect(
      payload(document, [
        { a: 1, b: [2] },
        { b: [2], a: 1 },
      ]).errors.map((error) => error.keyword),
    ).toEqual(["uniqueItems"]);
    expect(payload(document, [1, 1.0]).errors.map((error) => error.keyword)).toEqual(["uniqueItems"]);
    expect(payload(document, ["1", 1, [1], { 1: 1 }]).approved).toBe(true);
  });

  it("uniqueItems inside one oneOf branch only applies there", () => {
    const document = stringContract({
      oneOf: [
        { type: "array", uniqueItems: true, items: { type: "integer" } },
        { type: "array", items: { type: "string" } },
      ],
    });
    expect(payload(document, ["a", "a"]).approved).toBe(true);
    expect(payload(document, [1, 1]).approved).toBe(false);
  });

  it("a value whose validation exceeds its budget is 'cannot verify', naming the limit", GUARD, () => {
    // Three levels of 20-way oneOf over a nested array: each level multiplies the work by twenty.
    const branch = (inner: unknown, index: number) => ({ type: "array", items: inner, minItems: index + 1 });
    let schema: unknown = { type: "integer" };
    for (let level = 0; level < 3; level++) {
      const inner = schema;
      schema = { oneOf: Array.from({ length: 20 }, (_, index) => branch(inner, index)) };
    }
    const value = Array.from({ length: 30 }, () =>
      Array.from({ length: 30 }, () => Array.from({ length: 30 }, () => 1)),
    );
    const result = payload(stringContract(schema), value);
    expect(result.violations).toEqual([
      expect.objectContaining({
        rule: "work-budget-exhausted",
        message: expect.stringMatching(
          /^cannot verify: validating this value needs more than 100,000 work units, the limit per value/,
        ),
      }),
    ]);
  });
});
