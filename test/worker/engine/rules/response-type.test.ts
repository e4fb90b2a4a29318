import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const get = (schema: unknown, version = "3.0.3", extra: Record<string, unknown> = {}) =>
  openapi({ "/orders": { get: { responses: responses({ "200": schema }) } } }, extra, version);
const contract = get({
  type: "object",
  properties: {
    count: { type: "integer" },
    total: { type: "number" },
    tags: { type: "array", items: { type: "string" } },
  },
});

describe("response-type", () => {
  it("accepts the same types, an integer where a number is allowed, and ASP.NET's [integer, string] with a pattern", () => {
    expectValid(
      "response-type",
      contract,
      get(
        {
          type: "object",
          properties: {
            count: { type: ["integer", "string"], pattern: "^-?(?:0|[1-9]\\d*)$", format: "int32" },
            total: { type: "integer" },
            tags: { type: "array", items: { type: "string" } },
          },
        },
        "3.1.0",
      ),
    );
  });

  it("compares a property the implementation requires without declaring it against its additionalProperties, or reports it as untyped", () => {
    const counted = get({ type: "object", required: ["count"], properties: { count: { type: "integer" } } });
    expectValid(
      "response-type",
      counted,
      get({
        type: "object",
        required: ["count"],
        properties: { total: { type: "number" } },
        additionalProperties: { type: "integer" },
      }),
    );
    expectViolations(
      "response-type",
      counted,
      get({
        type: "object",
        required: ["count"],
        properties: { total: { type: "number" } },
        additionalProperties: { type: "string" },
      }),
      [
        {
          location: "GET /orders#/responses/200/content/application~1json/schema/properties/count",
          message: "status 200: type is integer in the contract but string in the implementation",
        },
      ],
    );
    expectViolations(
      "response-type",
      counted,
      get({ type: "object", required: ["count"], properties: { total: { type: "number" } } }),
      [
        {
          location: "GET /orders#/responses/200/content/application~1json/schema/properties/count",
          message:
            'status 200: the implementation requires property "count" but does not define it, so it may return any value where the contract says integer',
        },
      ],
    );
  });

  it("reports changed types at any depth, and a recursive schema terminates", () => {
    const recursive = {
      components: {
        schemas: {
          Node: {
            type: "object",
            properties: {
              id: { type: "string" },
              children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
            },
          },
        },
      },
    };
    expectViolations(
      "response-type",
      contract,
      get({
        type: "object",
        properties: {
          count: { type: "string" },
          total: { type: "number" },
          tags: { type: "array", items: { type: "integer" } },
        },
      }),
      [
        {
          location: "GET /orders#/responses/200/content/application~1json/schema/properties/count",
          message: "type is integer in the contract but string in the implementation",
        },
        {
          location: "GET /orders#/responses/200/content/application~1json/schema/properties/tags/items",
          message: "type is string in the contract but integer",
        },
      ],
    );
    const recursiveChanged = {
      components: {
        schemas: {
          Node: {
            type: "object",
            properties: {
              id: { type: "integer" },
              children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
            },
          },
        },
      },
    };
    expectValid(
      "response-type",
      get({ $ref: "#/components/schemas/Node" }, "3.0.3", recursive),
      get({ $ref: "#/components/schemas/Node" }, "3.0.3", recursive),
    );
    expectViolations(
      "response-type",
      get({ $ref: "#/components/schemas/Node" }, "3.0.3", recursive),
      get({ $ref: "#/components/schemas/Node" }, "3.0.3", recursiveChanged),
      [
        {
          location: "GET /orders#/responses/200/content/application~1json/schema/properties/id",
          message: "type is string in the contract but integer",
        },
      ],
    );
  });
});
