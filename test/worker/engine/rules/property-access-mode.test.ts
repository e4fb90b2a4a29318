import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const RULE = "property-access-mode";
const RESPONSE = "GET /orders#/responses/200/content/application~1json/schema";
const BODY = "POST /orders#/requestBody/content/application~1json/schema";
const get = (schema: unknown, schemas: Record<string, unknown> = {}) =>
  openapi({ "/orders": { get: { responses: responses({ "200": schema }) } } }, { components: { schemas } });
const post = (schema: unknown, schemas: Record<string, unknown> = {}) =>
  openapi(
    {
      "/orders": {
        post: { requestBody: { content: { "application/json": { schema } } }, responses: responses({ "204": null }) },
      },
    },
    { components: { schemas } },
  );

describe("property-access-mode", () => {
  it("accepts the same flags written inline, through $ref or through allOf", () => {
    const inline = {
      type: "object",
      required: ["sku"],
      properties: {
        id: { type: "string", readOnly: true },
        sku: { type: "string" },
        secret: { type: "string", writeOnly: true },
      },
    };
    const viaAllOf = {
      allOf: [
        { $ref: "#/components/schemas/Base" },
        {
          type: "object",
          required: ["sku"],
          properties: { sku: { type: "string" }, secret: { allOf: [{ $ref: "#/components/schemas/Secret" }] } },
        },
      ],
    };
    const schemas = {
      Base: { type: "object", properties: { id: { type: "string", readOnly: true } } },
      Secret: { type: "string", writeOnly: true },
    };
    expectValid(RULE, get(inline), get(viaAllOf, schemas));
    expectValid(RULE, post(inline), post(viaAllOf, schemas));
  });

  it("accepts flags that only narrow the other direction: readOnly in responses, writeOnly in requests", () => {
    const plain = {
      type: "object",
      required: ["sku"],
      properties: { sku: { type: "string" }, note: { type: "string" } },
    };
    expectValid(
      RULE,
      get(plain),
      get({ ...plain, properties: { sku: { type: "string", readOnly: true }, note: { type: "string" } } }),
    );
    expectValid(
      RULE,
      post(plain),
      post({ ...plain, properties: { sku: { type: "string", writeOnly: true }, note: { type: "string" } } }),
    );
  });

  it("reports a property the contract returns that becomes writeOnly, also when the flag comes through allOf", () => {
    const contract = get({ type: "object", properties: { note: { type: "string" }, code: { type: "string" } } });
    expectViolations(
      RULE,
      contract,
      get(
        {
          type: "object",
          properties: {
            note: { type: "string", writeOnly: true },
            code: { allOf: [{ $ref: "#/components/schemas/Code" }] },
          },
        },
        { Code: { type: "string", writeOnly: true } },
      ),
      [
        { location: `${RESPONSE}/properties/code`, message: 'property "code" is writeOnly in the implementation' },
        {
          location: `${RESPONSE}/properties/note`,
          message: 'property "note" is writeOnly in the implementation, so its responses no longer include it',
        },
      ],
    );
  });

  it("reports a property the contract requires clients to send that becomes readOnly, also when the required list comes through allOf", () => {
    const contract = post({
      allOf: [{ type: "object", properties: { sku: { type: "string" } } }, { required: ["sku"] }],
    });
    expectViolations(
      RULE,
      contract,
      post({ type: "object", properties: { sku: { type: "string", readOnly: true } } }),
      [
        {
          location: `${BODY}/properties/sku`,
          message: 'the contract requires clients to send property "sku" but the implementation marks it readOnly',
        },
      ],
    );
  });
});
