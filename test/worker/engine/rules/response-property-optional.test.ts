import { describe, expect, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const get = (schema: unknown) => openapi({ "/orders": { get: { responses: responses({ "200": schema }) } } });
const contract = get({ type: "object", required: ["id", "total"], properties: { id: { type: "string" }, total: { type: "number" } } });

describe("response-property-optional", () => {
  it("accepts the same required list, and a generator that emits no `required` at all", () => {
    expectValid("response-property-optional", contract, get({ type: "object", required: ["total", "id"], properties: { id: { type: "string" }, total: { type: "number" } } }));
    expectValid("response-property-optional", contract, get({ type: "object", properties: { id: { type: "string" }, total: { type: "number" } } }));
  });

  it("is satisfied by a writeOnly contract property the implementation leaves optional (responses never include it)", () => {
    expectValid("response-property-optional", get({ type: "object", required: ["id", "pin"], properties: { id: { type: "string" }, pin: { type: "string", writeOnly: true } } }), get({ type: "object", required: ["id"], properties: { id: { type: "string" }, pin: { type: "string" } } }));
  });

  it("reports, as an error, a contract-required property the implementation declares optional", () => {
    const [violation] = expectViolations("response-property-optional", contract, get({ type: "object", required: ["id"], properties: { id: { type: "string" }, total: { type: "number" } } }), [
      { location: "GET /orders#/responses/200/content/application~1json/schema/properties/total", message: "may be omitted" },
    ]);
    expect(violation?.severity).toBe("error");
  });
});
