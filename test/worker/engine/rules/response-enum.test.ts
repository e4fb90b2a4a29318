import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const get = (schema: unknown) => openapi({ "/orders": { get: { responses: responses({ "200": schema }) } } });
const contract = get({ type: "object", properties: { status: { type: "string", enum: ["open", "paid", "shipped"] } } });

describe("response-enum", () => {
  it("accepts the same values in another order, or fewer", () => {
    expectValid(
      "response-enum",
      contract,
      get({ type: "object", properties: { status: { type: "string", enum: ["shipped", "open"] } } }),
    );
  });

  it("accepts a 3.1 const where the contract writes a one-value enum", () => {
    const fixed = (schema: unknown, version = "3.0.3") =>
      openapi(
        { "/orders": { get: { responses: responses({ "200": { type: "object", properties: { kind: schema } } }) } } },
        {},
        version,
      );
    expectValid(
      "response-enum",
      fixed({ type: "string", enum: ["order"] }),
      fixed({ type: "string", const: "order" }, "3.1.0"),
    );
  });

  it("reports a const the implementation changes or drops (a single value is a promise, not an enum left out)", () => {
    const fixed = (schema: unknown) =>
      openapi(
        { "/orders": { get: { responses: responses({ "200": { type: "object", properties: { kind: schema } } }) } } },
        {},
        "3.1.0",
      );
    expectViolations(
      "response-enum",
      fixed({ type: "string", const: "order" }),
      fixed({ type: "string", const: "invoice" }),
      [
        {
          location: "GET /orders#/responses/200/content/application~1json/schema/properties/kind",
          message: 'status 200: the implementation may return "invoice", outside the contract\'s values ["order"]',
        },
      ],
    );
    expectViolations("response-enum", fixed({ type: "string", const: "order" }), fixed({ type: "string" }), [
      {
        location: "GET /orders#/responses/200/content/application~1json/schema/properties/kind",
        message:
          'status 200: the contract fixes the value to "order" but the implementation declares no such limit, so it may return others',
      },
    ]);
  });

  it("reports values the implementation may return outside the contract", () => {
    expectViolations(
      "response-enum",
      contract,
      get({
        type: "object",
        properties: { status: { type: "string", enum: ["open", "paid", "shipped", "refunded"] } },
      }),
      [
        {
          location: "GET /orders#/responses/200/content/application~1json/schema/properties/status",
          message: 'may return "refunded", outside the contract\'s values',
        },
      ],
    );
  });
});
