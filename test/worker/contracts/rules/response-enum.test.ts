import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const get = (schema: unknown) => openapi({ "/orders": { get: { responses: responses({ "200": schema }) } } });
const contract = get({ type: "object", properties: { status: { type: "string", enum: ["open", "paid", "shipped"] } } });

describe("response-enum", () => {
  it("accepts the same values in another order, or fewer", () => {
    expectValid("response-enum", contract, get({ type: "object", properties: { status: { type: "string", enum: ["shipped", "open"] } } }));
  });

  it("reports values the implementation may return outside the contract", () => {
    expectViolations("response-enum", contract, get({ type: "object", properties: { status: { type: "string", enum: ["open", "paid", "shipped", "refunded"] } } }), [
      { location: "GET /orders#/responses/200/content/application~1json/schema/properties/status", message: "may return \"refunded\", outside the contract's values" },
    ]);
  });
});
