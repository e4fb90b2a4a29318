import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const get = (schema: unknown, version = "3.0.3", extra: Record<string, unknown> = {}) =>
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
    version,
  );

const order = {
  type: "object",
  properties: {
    quantity: { type: "integer", minimum: 1, maximum: 99 },
    discount: { type: "number", minimum: 0, maximum: 1, exclusiveMaximum: true },
    reference: { type: "string", minLength: 8, maxLength: 8, pattern: "^ORD[0-9]{5}$" },
    tags: { type: "array", items: { type: "string" }, maxItems: 5, uniqueItems: true },
    secret: { type: "string", writeOnly: true, maxLength: 8 },
  },
};
const contract = get(order);
const POINTER = "GET /orders/{id}#/responses/200/content/application~1json/schema";

describe("response-constraint", () => {
  it("accepts the same constraints written the 3.1 way, and tighter ones", () => {
    expectValid(
      "response-constraint",
      contract,
      get({ $ref: "#/components/schemas/Order" }, "3.1.0", {
        components: {
          schemas: {
            Order: {
              ...order,
              properties: { ...order.properties, discount: { type: "number", minimum: 0, exclusiveMaximum: 1 } },
            },
          },
        },
      }),
    );
    expectValid(
      "response-constraint",
      contract,
      get({
        type: "object",
        properties: {
          quantity: { type: "integer", minimum: 2, maximum: 10 },
          discount: { type: "number", minimum: 0, maximum: 0.5 },
          reference: { type: "string", minLength: 8, maxLength: 8, pattern: "^ORD[0-9]{5}$" },
          tags: { type: "array", items: { type: "string" }, maxItems: 3, uniqueItems: true },
        },
      }),
    );
  });

  it("checks values the implementation enumerates against the contract's constraints", () => {
    expectValid(
      "response-constraint",
      contract,
      get({
        type: "object",
        properties: { ...order.properties, reference: { type: "string", enum: ["ORD00001", "ORD00002"] } },
      }),
    );
  });

  it("leaves a contract that lists its values to the enum rules (one violation per change)", () => {
    const status = (schema: unknown) => get({ type: "object", properties: { status: schema } });
    expectValid(
      "response-constraint",
      status({ type: "string", enum: ["open", "paid"], maxLength: 4 }),
      status({ type: "string", enum: ["open", "paid", "refunded"] }),
    );
  });

  it("ignores writeOnly properties, which responses never include", () => {
    expectValid(
      "response-constraint",
      contract,
      get({ ...order, properties: { ...order.properties, secret: { type: "string", writeOnly: true } } }),
    );
  });

  it("reports looser, changed and dropped constraints", () => {
    expectViolations(
      "response-constraint",
      contract,
      get({
        type: "object",
        properties: {
          quantity: { type: "integer", minimum: 0, maximum: 99 },
          discount: { type: "number", minimum: 0, maximum: 1 },
          reference: { type: "string", pattern: "^ORD[0-9]+$" },
          tags: { type: "array", items: { type: "string" } },
        },
      }),
      [
        {
          location: `${POINTER}/properties/discount`,
          message:
            "the upper bound is < 1 in the contract but <= 1 in the implementation, so it may return values the contract does not allow",
        },
        {
          location: `${POINTER}/properties/quantity`,
          message: "the lower bound is >= 1 in the contract but >= 0 in the implementation",
        },
        {
          location: `${POINTER}/properties/reference`,
          message:
            "the contract sets minLength 8 but the implementation declares none, so it may return values the contract does not allow",
        },
        {
          location: `${POINTER}/properties/reference`,
          message: "the contract sets maxLength 8 but the implementation declares none",
        },
        {
          location: `${POINTER}/properties/reference`,
          message: 'pattern is "^ORD[0-9]{5}$" in the contract but "^ORD[0-9]+$" in the implementation',
        },
        {
          location: `${POINTER}/properties/tags`,
          message: "the contract sets maxItems 5 but the implementation declares none",
        },
        {
          location: `${POINTER}/properties/tags`,
          message: "the contract requires unique items (uniqueItems) but the implementation does not",
        },
      ],
    );
  });

  it("reports a pattern the implementation drops, and an enumerated value outside the contract's bounds", () => {
    expectViolations(
      "response-constraint",
      contract,
      get({
        type: "object",
        properties: {
          ...order.properties,
          quantity: { type: "integer", enum: [1, 100] },
          reference: { type: "string", minLength: 8, maxLength: 8 },
        },
      }),
      [
        {
          location: `${POINTER}/properties/quantity`,
          message: "status 200: the implementation may return 100, outside the contract's upper bound <= 99",
        },
        {
          location: `${POINTER}/properties/reference`,
          message: 'the contract sets pattern "^ORD[0-9]{5}$" but the implementation declares none',
        },
      ],
    );
  });
});
