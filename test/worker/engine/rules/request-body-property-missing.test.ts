import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const post = (schema: unknown) =>
  openapi({
    "/orders": {
      post: { requestBody: { content: { "application/json": { schema } } }, responses: responses({ "201": null }) },
    },
  });
const contract = post({ type: "object", properties: { sku: { type: "string" }, giftWrap: { type: "boolean" } } });

describe("request-body-property-missing", () => {
  it("accepts an implementation that knows every contract property, or takes any property", () => {
    expectValid(
      "request-body-property-missing",
      contract,
      post({
        type: "object",
        properties: { giftWrap: { type: "boolean" }, sku: { type: "string" }, extra: { type: "string" } },
      }),
    );
    expectValid(
      "request-body-property-missing",
      contract,
      post({ type: "object", properties: { sku: { type: "string" } }, additionalProperties: true }),
    );
  });

  it("does not expect readOnly contract properties, and knows a property it requires without declaring it", () => {
    const withId = post({
      type: "object",
      properties: { id: { type: "string", readOnly: true }, sku: { type: "string" }, giftWrap: { type: "boolean" } },
    });
    expectValid(
      "request-body-property-missing",
      withId,
      post({ type: "object", properties: { sku: { type: "string" }, giftWrap: { type: "boolean" } } }),
    );
    expectValid(
      "request-body-property-missing",
      contract,
      post({ type: "object", required: ["giftWrap"], properties: { sku: { type: "string" } } }),
    );
  });

  it("reports a property the implementation marks readOnly: it ignores what clients send", () => {
    expectViolations(
      "request-body-property-missing",
      contract,
      post({ type: "object", properties: { sku: { type: "string" }, giftWrap: { type: "boolean", readOnly: true } } }),
      [
        {
          location: "POST /orders#/requestBody/content/application~1json/schema/properties/giftWrap",
          message: 'the implementation marks property "giftWrap" readOnly, so it ignores the value clients send',
        },
      ],
    );
  });

  it("reports contract properties the implementation does not know", () => {
    expectViolations(
      "request-body-property-missing",
      contract,
      post({ type: "object", properties: { sku: { type: "string" } } }),
      [
        {
          location: "POST /orders#/requestBody/content/application~1json/schema/properties/giftWrap",
          message: 'does not accept property "giftWrap"',
        },
      ],
    );
  });
});
