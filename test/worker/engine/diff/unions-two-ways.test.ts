/**
 * A union written two ways (issue 35): a 3.1 type array (`type: [string, object]`, with keywords for some of its
 * types) and a `oneOf` of single-type alternatives describe the same values. A rewrite from one form to the other
 * is no change, in request and response bodies, in both directions; a change inside either form is judged alike
 * (the same rules at the same severities as when both sides use the same form).
 */
import { describe, expect, it } from "vitest";
import { loadConformanceConfig } from "../../../../src/engine/verdict/config";
import { bundledPolicyFiles } from "../../../../src/policy/files";
import { checkConformance } from "../../../../src/engine/engine";
import type { OpenApiDocument } from "../../../../src/engine/types";
import { openapi, responses } from "../harness";

type Schema = Record<string, unknown>;
type Place = "request" | "response";

function documentWith(schema: Schema, place: Place): OpenApiDocument {
  const operation =
    place === "request"
      ? {
          post: {
            requestBody: { required: true, content: { "application/json": { schema } } },
            responses: responses({ "204": null }),
          },
        }
      : { get: { responses: responses({ "200": schema }) } };
  return openapi({ "/things": operation }, {}, "3.1.0");
}

/** The bundled conformance policy, the constitution (rules on the implementation alone) left out. */
const config = loadConformanceConfig({ ...bundledPolicyFiles, "constitution.json": { rules: {} } });

/** The rule ids and severities of a verdict (where they are reported may differ between the forms). */
function findings(contract: Schema, implementation: Schema, place: Place): string[] {
  const verdict = checkConformance(documentWith(contract, place), documentWith(implementation, place), config);
  return verdict.violations.map((violation) => `${violation.rule}:${violation.severity}`).sort();
}

const asTypeArray = (object: Schema, string: Schema = {}, extraTypes: string[] = []): Schema => ({
  type: ["string", "object", ...extraTypes],
  ...string,
  ...object,
});
const asOneOf = (object: Schema, string: Schema = {}, extraTypes: string[] = []): Schema => ({
  oneOf: [{ type: "string", ...string }, { type: "object", ...object }, ...extraTypes.map((type) => ({ type }))],
});

const objectPart: Schema = { properties: { id: { type: "string" }, size: { type: "integer" } }, required: ["id"] };
const stringPart: Schema = { maxLength: 40, pattern: "^[a-z]+$" };

describe("a union written as a type array or as a oneOf", () => {
  for (const place of ["request", "response"] as const) {
    it(`is no change when rewritten from one form to the other (${place} body, both directions)`, () => {
      expect(findings(asTypeArray(objectPart, stringPart), asOneOf(objectPart, stringPart), place)).toEqual([]);
      expect(findings(asOneOf(objectPart, stringPart), asTypeArray(objectPart, stringPart), place)).toEqual([]);
    });

    it(`is no change with null among the types, or with an array member (${place} body)`, () => {
      expect(
        findings(asTypeArray(objectPart, stringPart, ["null"]), asOneOf(objectPart, stringPart, ["null"]), place),
      ).toEqual([]);
      const arrayTypes: Schema = { type: ["array", "string"], items: { type: "integer" }, minItems: 1, minLength: 2 };
      const arrayOneOf: Schema = {
        oneOf: [
          { type: "array", items: { type: "integer" }, minItems: 1 },
          { type: "string", minLength: 2 },
        ],
      };
      expect(findings(arrayTypes, arrayOneOf, place)).toEqual([]);
      expect(findings(arrayOneOf, arrayTypes, place)).toEqual([]);
    });

    it(`judges a change inside either form alike (${place} body)`, () => {
      const cases: Array<{ object: Schema; string: Schema; breaks: Place }> = [
        // A property newly required: breaks clients that send the object without it.
        { object: { ...objectPart, required: ["id", "size"] }, string: stringPart, breaks: "request" },
        // A property no longer required: the object may come back without it.
        { object: { ...objectPart, required: [] }, string: stringPart, breaks: "response" },
        // A shorter maximum length: refuses strings clients send.
        { object: objectPart, string: { ...stringPart, maxLength: 20 }, breaks: "request" },
      ];
      for (const { object, string, breaks } of cases) {
        const sameForm = findings(asOneOf(objectPart, stringPart), asOneOf(object, string), place);
        const what = JSON.stringify({ object, string });
        if (breaks === place)
          expect(
            sameForm.some((finding) => finding.endsWith(":error")),
            `an error when both use oneOf: ${what}`,
          ).toBe(true);
        expect(findings(asTypeArray(objectPart, stringPart), asTypeArray(object, string), place), what).toEqual(
          sameForm,
        );
        expect(findings(asTypeArray(objectPart, stringPart), asOneOf(object, string), place), what).toEqual(sameForm);
        expect(findings(asOneOf(objectPart, stringPart), asTypeArray(object, string), place), what).toEqual(sameForm);
      }
    });
  }
});
