import { describe, expect, it } from "vitest";
import { getConformanceConfig } from "../../../../src/engine/verdict/config";
import { checkConformance } from "../../../../src/engine/engine";
import { rulesById } from "../../../../src/engine/rules/index";
import type { OpenApiDocument } from "../../../../src/engine/types";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const cat = {
  type: "object",
  required: ["kind", "meow"],
  properties: { kind: { type: "string" }, meow: { type: "string" } },
};
const dog = {
  type: "object",
  required: ["kind", "bark"],
  properties: { kind: { type: "string" }, bark: { type: "boolean" } },
};
const bird = {
  type: "object",
  required: ["kind", "wings"],
  properties: { kind: { type: "string" }, wings: { type: "integer" } },
};
const anyObject = { type: "object" };
const emptyObject = { type: "object", properties: {}, additionalProperties: false };
const schemas = {
  components: { schemas: { Cat: cat, Dog: dog, Bird: bird, AnyObject: anyObject, EmptyObject: emptyObject } },
};
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
// (The bundled principles want a write operation's errors as problem+json: given, so only the comparison decides.)
const problem = {
  "400": { description: "bad request", content: { "application/problem+json": { schema: { type: "object" } } } },
};
const request = (schema: unknown) =>
  openapi(
    {
      "/pets": {
        post: {
          requestBody: { content: { "application/json": { schema } } },
          responses: { ...responses({ "204": null }), ...problem },
        },
      },
    },
    schemas,
  );
const response = (schema: unknown) =>
  openapi({ "/pets": { get: { responses: responses({ "200": schema }) } } }, schemas);
const BODY = "POST /pets#/requestBody/content/application~1json/schema";
const RESPONSE = "GET /pets#/responses/200/content/application~1json/schema";

/**
 * The verdict with the bundled policies, every rule at its default severity, as uploads run it; its compatibility
 * findings (the fixtures' own principles, such as operation security, aside).
 */
function verdict(contract: OpenApiDocument, snapshot: OpenApiDocument) {
  const result = checkConformance(contract, snapshot, getConformanceConfig());
  const findings = result.violations
    .filter(({ rule }) => rulesById.get(rule)?.kind === "conformance")
    .map(({ rule, severity }) => `${severity} ${rule}`);
  return { approved: result.approved, findings };
}

describe("schema-alternative-covered", () => {
  it("names the open contract alternative that allows a new response alternative, and the verdict stays approved", () => {
    const contract = response({ oneOf: [ref("Cat"), ref("AnyObject")] });
    const snapshot = response({ oneOf: [ref("Cat"), ref("AnyObject"), ref("Bird")] });
    expectViolations("schema-alternative-covered", contract, snapshot, [
      {
        location: `${RESPONSE}/oneOf/1`,
        message:
          "status 200: the implementation's oneOf alternative 2 (Bird) is allowed because the contract's oneOf alternative 1 (AnyObject) admits any object",
      },
    ]);
    expect(verdict(contract, snapshot)).toEqual({ approved: true, findings: ["info schema-alternative-covered"] });
    // A covering alternative that constrains more than its type: the note says it accepts all of the new one.
    expectViolations(
      "schema-alternative-covered",
      response({ oneOf: [cat, { type: "object", properties: { kind: { type: "string" } } }] }),
      response({ oneOf: [cat, { type: "object", properties: { kind: { type: "string" } } }, bird] }),
      [
        {
          location: `${RESPONSE}/oneOf/1`,
          message:
            "status 200: the implementation's oneOf alternative 2 is allowed because the contract's oneOf alternative 1 accepts every value it may return",
        },
      ],
    );
  });

  it("names the implementation alternative that still accepts a contract request alternative it no longer lists", () => {
    const contract = request({ oneOf: [ref("Cat"), ref("Dog")] });
    const snapshot = request({ oneOf: [ref("Cat"), ref("AnyObject")] });
    expectViolations("schema-alternative-covered", contract, snapshot, [
      {
        location: `${BODY}/oneOf/1`,
        message:
          "the contract's oneOf alternative 1 (Dog) is still accepted because the implementation's oneOf alternative 1 (AnyObject) admits any object",
      },
    ]);
    expect(verdict(contract, snapshot)).toEqual({ approved: true, findings: ["info schema-alternative-covered"] });
  });

  it("says nothing where no alternative covers it (still rejected) or where every alternative has its unchanged partner", () => {
    const response3 = response({ oneOf: [ref("Cat"), ref("Dog"), ref("Bird")] });
    expectValid("schema-alternative-covered", response({ oneOf: [ref("Cat"), ref("Dog")] }), response3);
    expect(verdict(response({ oneOf: [ref("Cat"), ref("Dog")] }), response3)).toEqual({
      approved: false,
      findings: ["error schema-alternatives"],
    });
    expectValid(
      "schema-alternative-covered",
      request({ oneOf: [ref("Cat"), ref("Dog"), ref("Bird")] }),
      request({ oneOf: [ref("Cat"), ref("Bird")] }),
    );
    expect(
      verdict(request({ oneOf: [ref("Cat"), ref("Dog"), ref("Bird")] }), request({ oneOf: [ref("Cat"), ref("Bird")] })),
    ).toEqual({ approved: false, findings: ["error schema-alternatives"] });
    // A closed alternative admits no object with properties: it covers nothing here (GitHub's empty-object).
    const closed = response({ oneOf: [ref("Cat"), ref("EmptyObject")] });
    expectValid(
      "schema-alternative-covered",
      closed,
      response({ oneOf: [ref("Cat"), ref("EmptyObject"), ref("Bird")] }),
    );
    expect(verdict(closed, response({ oneOf: [ref("Cat"), ref("EmptyObject"), ref("Bird")] }))).toEqual({
      approved: false,
      findings: ["error schema-alternatives"],
    });
    // Alternatives paired with an identical one need no reason: the same list, reordered and renamed.
    expectValid("schema-alternative-covered", response3, response({ oneOf: [bird, cat, dog] }));
    expectValid(
      "schema-alternative-covered",
      request({ oneOf: [ref("Cat"), ref("Dog")] }),
      request({ oneOf: [dog, cat] }),
    );
  });
});
