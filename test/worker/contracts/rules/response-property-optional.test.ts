import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const get = (schema: unknown) => openapi({ "/orders": { get: { responses: responses({ "200": schema }) } } });
const contract = get({ type: "object", required: ["id", "total"], properties: { id: { type: "string" }, total: { type: "number" } } });

describe("response-property-optional", () => {
  it("accepts the same required list, and a generator that emits no `required` at all", () => {
    expectValid("response-property-optional", contract, get({ type: "object", required: ["total", "id"], properties: { id: { type: "string" }, total: { type: "number" } } }));
    expectValid("response-property-optional", contract, get({ type: "object", properties: { id: { type: "string" }, total: { type: "number" } } }));
  });

  it("reports a contract-required property the implementation declares optional", () => {
    expectViolations("response-property-optional", contract, get({ type: "object", required: ["id"], properties: { id: { type: "string" }, total: { type: "number" } } }), [
      { location: "GET /orders#/responses/200/content/application~1json/schema/properties/total", message: "may be omitted" },
    ]);
  });
});
