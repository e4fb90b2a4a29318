import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const post = (schema: unknown, extra: Record<string, unknown> = {}) => openapi({ "/orders": { post: { requestBody: { required: true, content: { "application/json": { schema } } }, responses: responses({ "201": null }) } } }, extra);
const contract = post({ type: "object", required: ["sku"], properties: { sku: { type: "string" }, note: { type: "string" }, address: { type: "object", properties: { zip: { type: "string" } } } } });

describe("request-body-required-property", () => {
  it("accepts the same required properties through a $ref, and fewer required ones", () => {
    expectValid("request-body-required-property", contract, post({ $ref: "#/components/schemas/NewOrder" }, { components: { schemas: { NewOrder: { type: "object", required: ["sku"], properties: { sku: { type: "string" }, note: { type: "string" }, address: { type: "object", properties: { zip: { type: "string" } } } } } } } }));
    expectValid("request-body-required-property", contract, post({ type: "object", properties: { sku: { type: "string" }, note: { type: "string" }, address: { type: "object", properties: { zip: { type: "string" } } } } }));
  });

  it("reports properties the implementation requires and the contract does not, at any depth", () => {
    expectViolations("request-body-required-property", contract, post({ type: "object", required: ["sku", "note", "coupon"], properties: { sku: { type: "string" }, note: { type: "string" }, coupon: { type: "string" }, address: { type: "object", required: ["zip"], properties: { zip: { type: "string" } } } } }), [
      { location: "POST /orders#/requestBody/content/application~1json/schema/properties/address/properties/zip", message: "requires property \"zip\", which the contract makes optional" },
      { location: "POST /orders#/requestBody/content/application~1json/schema/properties/coupon", message: "requires property \"coupon\", which the contract does not define" },
      { location: "POST /orders#/requestBody/content/application~1json/schema/properties/note", message: "requires property \"note\", which the contract makes optional" },
    ]);
  });
});
