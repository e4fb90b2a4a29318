import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const post = (schema: unknown, version = "3.0.3", extra: Record<string, unknown> = {}) =>
  openapi(
    {
      "/orders": {
        post: {
          requestBody: { required: true, content: { "application/json": { schema } } },
          responses: responses({ "201": null }),
        },
      },
    },
    extra,
    version,
  );

const order = {
  type: "object",
  minProperties: 1,
  properties: {
    quantity: { type: "integer", minimum: 1, maximum: 99 },
    coupon: { type: "string", maxLength: 12, pattern: "^[A-Z0-9]+$" },
    lines: {
      type: "array",
      minItems: 1,
      items: { type: "object", properties: { sku: { type: "string", minLength: 3 } } },
    },
    id: { type: "string", readOnly: true, maxLength: 36 },
  },
};
const contract = post(order);
const POINTER = "POST /orders#/requestBody/content/application~1json/schema";

describe("request-body-constraint", () => {
  it("accepts the same constraints through $ref and allOf in 3.1, and wider ones", () => {
    expectValid(
      "request-body-constraint",
      contract,
      post({ $ref: "#/components/schemas/Order" }, "3.1.0", { components: { schemas: { Order: { allOf: [order] } } } }),
    );
    expectValid(
      "request-body-constraint",
      contract,
      post({
        type: "object",
        properties: {
          quantity: { type: "integer", minimum: 0 },
          coupon: { type: "string", pattern: "^[A-Z0-9]+$", maxLength: 64 },
          lines: { type: "array", items: { type: "object", properties: { sku: { type: "string", minLength: 1 } } } },
          id: { type: "string", readOnly: true },
        },
      }),
    );
  });

  it("ignores constraints on readOnly properties, which clients do not send", () => {
    expectValid(
      "request-body-constraint",
      contract,
      post({ ...order, properties: { ...order.properties, id: { type: "string", readOnly: true, maxLength: 8 } } }),
    );
  });

  it("reports narrower constraints at any depth, and constraints the contract does not set", () => {
    expectViolations(
      "request-body-constraint",
      contract,
      post({
        type: "object",
        minProperties: 2,
        maxProperties: 3,
        properties: {
          quantity: { type: "integer", minimum: 1, maximum: 10 },
          coupon: { type: "string", maxLength: 12, pattern: "^[A-Z]+$" },
          lines: {
            type: "array",
            minItems: 1,
            items: { type: "object", properties: { sku: { type: "string", minLength: 5 } } },
          },
          id: { type: "string", readOnly: true },
        },
      }),
      [
        {
          location: POINTER,
          message:
            "minProperties is 1 in the contract but 2 in the implementation, so it refuses values the contract allows",
        },
        { location: POINTER, message: "the implementation sets maxProperties 3, which the contract does not" },
        {
          location: `${POINTER}/properties/coupon`,
          message: 'pattern is "^[A-Z0-9]+$" in the contract but "^[A-Z]+$" in the implementation',
        },
        {
          location: `${POINTER}/properties/lines/items/properties/sku`,
          message: "minLength is 3 in the contract but 5 in the implementation",
        },
        {
          location: `${POINTER}/properties/quantity`,
          message: "the upper bound is <= 99 in the contract but <= 10 in the implementation",
        },
      ],
    );
  });
});

describe("request-body-constraint with uniqueItems, in both directions", () => {
  const tags = (schema: Record<string, unknown>, version = "3.0.3", extra: Record<string, unknown> = {}) =>
    post({ type: "object", properties: { tags: schema } }, version, extra);
  const list = { type: "array", items: { type: "string" } };

  it("accepts uniqueItems the contract sets and the implementation drops (it accepts more), and the same list behind a $ref in 3.1", () => {
    expectValid("request-body-constraint", tags({ ...list, uniqueItems: true }), tags(list));
    expectValid(
      "request-body-constraint",
      tags({ ...list, uniqueItems: true }),
      tags({ $ref: "#/components/schemas/Tags" }, "3.1.0", {
        components: { schemas: { Tags: { ...list, uniqueItems: true } } },
      }),
    );
  });

  it("reports uniqueItems turned on by the implementation for a request array", () => {
    expectViolations("request-body-constraint", tags(list), tags({ ...list, uniqueItems: true }), [
      {
        location: "POST /orders#/requestBody/content/application~1json/schema/properties/tags",
        message: "the implementation requires unique items (uniqueItems), which the contract does not",
      },
    ]);
  });
});
