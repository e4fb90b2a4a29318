import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const get = (schema: unknown, extra: Record<string, unknown> = {}) =>
  openapi(
    {
      "/orders/{id}": {
        get: {
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: responses({ "200": schema }),
        },
      },
    },
    extra,
  );
const contract = get({
  type: "object",
  required: ["id", "total"],
  properties: {
    id: { type: "string" },
    total: { type: "number" },
    lines: { type: "array", items: { type: "object", required: ["sku"], properties: { sku: { type: "string" } } } },
  },
});

describe("response-required-property", () => {
  it("accepts an implementation that declares the properties (inlined or through $ref and allOf), even without `required`", () => {
    expectValid(
      "response-required-property",
      contract,
      get(
        { $ref: "#/components/schemas/Order" },
        {
          components: {
            schemas: {
              Line: { type: "object", properties: { sku: { type: "string" } } },
              Order: {
                allOf: [
                  { type: "object", properties: { id: { type: "string" } } },
                  {
                    type: "object",
                    properties: {
                      total: { type: "number" },
                      lines: { type: "array", items: { $ref: "#/components/schemas/Line" } },
                    },
                  },
                ],
              },
            },
          },
        },
      ),
    );
  });

  it("does not expect writeOnly properties in a response: they exist only in requests", () => {
    const account = (schema: unknown) => get(schema);
    const contractAccount = account({
      type: "object",
      required: ["id", "password"],
      properties: { id: { type: "string" }, password: { type: "string", writeOnly: true } },
    });
    expectValid(
      "response-required-property",
      contractAccount,
      account({ type: "object", required: ["id"], properties: { id: { type: "string" }, email: { type: "string" } } }),
    );
  });

  it("reports a required property the implementation marks writeOnly (never returned)", () => {
    const account = (schema: unknown) => get(schema);
    expectViolations(
      "response-required-property",
      account({
        type: "object",
        required: ["id", "token"],
        properties: { id: { type: "string" }, token: { type: "string" } },
      }),
      account({
        type: "object",
        required: ["id", "token"],
        properties: { id: { type: "string" }, token: { type: "string", writeOnly: true } },
      }),
      [
        {
          location: "GET /orders/{id}#/responses/200/content/application~1json/schema/properties/token",
          message:
            'status 200: required property "token" is writeOnly in the implementation, so its responses never include it',
        },
      ],
    );
  });

  it("reports required properties missing from the implementation, inside arrays too", () => {
    expectViolations(
      "response-required-property",
      contract,
      get({
        type: "object",
        properties: {
          id: { type: "string" },
          lines: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
        },
      }),
      [
        {
          location:
            "GET /orders/{id}#/responses/200/content/application~1json/schema/properties/lines/items/properties/sku",
          message: 'status 200: required property "sku" is missing',
        },
        {
          location: "GET /orders/{id}#/responses/200/content/application~1json/schema/properties/total",
          message: 'status 200: required property "total" is missing',
        },
      ],
    );
  });
});
