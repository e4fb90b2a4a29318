import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const get = (schema: unknown, version = "3.0.3", extra: Record<string, unknown> = {}) =>
  openapi({ "/orders": { get: { responses: responses({ "200": schema }) } } }, extra, version);
const contract = get(
  {
    type: "object",
    properties: {
      note: { type: "string", nullable: true },
      total: { type: "number" },
      customer: { nullable: true, allOf: [{ $ref: "#/components/schemas/Customer" }] },
    },
  },
  "3.0.3",
  { components: { schemas: { Customer: { type: "object", properties: { id: { type: "string" } } } } } },
);

describe("response-nullability", () => {
  it("treats 3.0 nullable (on allOf, as NestJS writes it), 3.1 type arrays and anyOf with null alike", () => {
    expectValid(
      "response-nullability",
      contract,
      get(
        {
          type: "object",
          properties: {
            note: { type: ["string", "null"] },
            total: { type: "number" },
            customer: { anyOf: [{ $ref: "#/components/schemas/Customer" }, { type: "null" }] },
          },
        },
        "3.1.0",
        { components: { schemas: { Customer: { type: "object", properties: { id: { type: "string" } } } } } },
      ),
    );
    expectValid(
      "response-nullability",
      contract,
      get(
        {
          type: "object",
          properties: {
            note: { type: "string", nullable: true },
            total: { type: "number" },
            customer: { nullable: true, allOf: [{ $ref: "#/components/schemas/Customer" }] },
          },
        },
        "3.0.3",
        { components: { schemas: { Customer: { type: "object", properties: { id: { type: "string" } } } } } },
      ),
    );
  });

  it("reports null the contract does not allow", () => {
    expectViolations(
      "response-nullability",
      contract,
      get(
        {
          type: "object",
          required: ["total"],
          properties: { note: { type: "string" }, total: { type: ["number", "null"] } },
        },
        "3.1.0",
      ),
      [
        {
          location: "GET /orders#/responses/200/content/application~1json/schema/properties/total",
          message: "may return null where the contract does not allow null",
        },
      ],
    );
  });
});

describe("response-nullability in OpenAPI 3.0", () => {
  it("ignores `nullable` beside a $ref, as 3.0 ignores every $ref sibling", () => {
    const schemas = {
      components: { schemas: { Customer: { type: "object", properties: { id: { type: "string" } } } } },
    };
    const siblingNullable = get(
      {
        type: "object",
        required: ["customer"],
        properties: { customer: { $ref: "#/components/schemas/Customer", nullable: true } },
      },
      "3.0.3",
      schemas,
    );
    const reallyNullable = get(
      {
        type: "object",
        required: ["customer"],
        properties: { customer: { anyOf: [{ $ref: "#/components/schemas/Customer" }, { type: "null" }] } },
      },
      "3.1.0",
      schemas,
    );
    expectViolations("response-nullability", siblingNullable, reallyNullable, [
      {
        location: "GET /orders#/responses/200/content/application~1json/schema/properties/customer",
        message: "may return null",
      },
    ]);
  });
});

describe("response-nullability across styles", () => {
  it('reports a 3.1 type array gaining "null" as it reports 3.0 nullable appearing', () => {
    const v31 = (type: unknown) =>
      get({ type: "object", required: ["total"], properties: { total: { type } } }, "3.1.0");
    const v30 = (nullable: boolean) =>
      get({
        type: "object",
        required: ["total"],
        properties: { total: { type: "number", ...(nullable ? { nullable: true } : {}) } },
      });
    const expected = [
      {
        location: "GET /orders#/responses/200/content/application~1json/schema/properties/total",
        message: "the implementation may return null where the contract does not allow null",
      },
    ];
    expectViolations("response-nullability", v31(["number"]), v31(["number", "null"]), expected);
    expectViolations("response-nullability", v30(false), v30(true), expected);
    expectViolations("response-nullability", v30(false), v31(["null", "number"]), expected);
    expectValid("response-nullability", v30(true), v31(["number", "null"]));
  });
});
