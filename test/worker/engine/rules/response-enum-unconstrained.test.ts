import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const get = (schema: unknown) => openapi({ "/orders": { get: { responses: responses({ "200": schema }) } } });
const contract = get({
  type: "object",
  properties: { status: { type: "string", enum: ["open", "paid", "shipped"] }, note: { type: "string" } },
});

describe("response-enum-unconstrained", () => {
  it("accepts an implementation that limits the values too (its own subset included), and one without a contract enum", () => {
    expectValid(
      "response-enum-unconstrained",
      contract,
      get({
        type: "object",
        properties: { status: { type: "string", enum: ["open", "paid"] }, note: { type: "string" } },
      }),
    );
    expectValid(
      "response-enum-unconstrained",
      get({ type: "object", properties: { note: { type: "string" } } }),
      get({ type: "object", properties: { note: { type: "string", enum: ["a"] } } }),
    );
  });

  it("warns when the implementation declares no enum where the contract limits the values", () => {
    const [violation] = expectViolations(
      "response-enum-unconstrained",
      contract,
      get({ type: "object", properties: { status: { type: "string" }, note: { type: "string" } } }),
      [
        {
          location: "GET /orders#/responses/200/content/application~1json/schema/properties/status",
          message: "declares no such limit, so it may return others",
        },
      ],
    );
    if (violation?.severity !== "warning") throw new Error(`expected a warning, got ${violation?.severity}`);
  });
});
