import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const post = (schema: unknown) => openapi({ "/orders": { post: { requestBody: { content: { "application/json": { schema } } }, responses: responses({ "201": null }) } } });
const contract = post({ type: "object", properties: { sku: { type: "string" }, giftWrap: { type: "boolean" } } });

describe("request-body-property-missing", () => {
  it("accepts an implementation that knows every contract property, or takes any property", () => {
    expectValid("request-body-property-missing", contract, post({ type: "object", properties: { giftWrap: { type: "boolean" }, sku: { type: "string" }, extra: { type: "string" } } }));
    expectValid("request-body-property-missing", contract, post({ type: "object", properties: { sku: { type: "string" } }, additionalProperties: true }));
  });

  it("reports contract properties the implementation does not know", () => {
    expectViolations("request-body-property-missing", contract, post({ type: "object", properties: { sku: { type: "string" } } }), [
      { location: "POST /orders#/requestBody/content/application~1json/schema/properties/giftWrap", message: "does not accept property \"giftWrap\"" },
    ]);
  });
});
