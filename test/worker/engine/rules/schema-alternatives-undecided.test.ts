import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const request = (schema: unknown) =>
  openapi({
    "/pets": {
      post: { requestBody: { content: { "application/json": { schema } } }, responses: responses({ "204": null }) },
    },
  });
const response = (schema: unknown) => openapi({ "/pets": { get: { responses: responses({ "200": schema }) } } });
const a = { type: "object", properties: { a: { type: "string" } } };
const b = { type: "object", properties: { b: { type: "string" } } };

describe("schema-alternatives-undecided", () => {
  it("stays quiet where the comparison decides: same keyword, oneOf where anyOf is allowed, alternatives that declare their types", () => {
    expectValid("schema-alternatives-undecided", request({ anyOf: [a, b] }), request({ anyOf: [b, a] }));
    expectValid("schema-alternatives-undecided", request({ oneOf: [a, b] }), request({ anyOf: [a, b] }));
    expectValid("schema-alternatives-undecided", response({ anyOf: [a, b] }), response({ oneOf: [a, b] }));
    expectValid("schema-alternatives-undecided", response({ oneOf: [a, {}] }), response({ oneOf: [a, {}] }));
  });

  it("warns, with the reason, where anyOf becomes oneOf in the breaking direction", () => {
    expectViolations("schema-alternatives-undecided", request({ anyOf: [a, b] }), request({ oneOf: [a, b] }), [
      {
        location: "POST /pets#/requestBody/content/application~1json/schema/anyOf",
        message:
          "the contract uses anyOf where the implementation uses oneOf: a value matching several alternatives is refused by the implementation, and whether the alternatives overlap cannot be decided here",
      },
    ]);
    expectViolations("schema-alternatives-undecided", response({ oneOf: [a, b] }), response({ anyOf: [a, b] }), [
      {
        location: "GET /pets#/responses/200/content/application~1json/schema/oneOf",
        message: "status 200: the implementation uses anyOf where the contract uses oneOf",
      },
    ]);
  });

  it("warns where an alternative constrains no type, instead of counting it as covered", () => {
    expectViolations(
      "schema-alternatives-undecided",
      response({ oneOf: [a, b] }),
      response({ oneOf: [a, { description: "anything" }] }),
      [
        {
          location: "GET /pets#/responses/200/content/application~1json/schema/oneOf",
          message:
            "status 200: the implementation's oneOf alternative 1 constrains no type, so whether the other side's alternatives cover it cannot be decided",
        },
      ],
    );
  });
});
