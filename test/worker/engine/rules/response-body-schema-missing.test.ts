import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi } from "../harness";

const RULE = "response-body-schema-missing";
const get = (content: Record<string, unknown>, version = "3.0.3") =>
  openapi({ "/orders": { get: { responses: { "200": { description: "ok", content } } } } }, {}, version);
const typed = { "application/json": { schema: { type: "object", properties: { id: { type: "string" } } } } };

describe("response-body-schema-missing", () => {
  it("accepts a schema on both sides, and a contract that itself promises nothing", () => {
    expectValid(
      RULE,
      get(typed),
      get({ "application/json": { schema: { type: "object", properties: { id: { type: "string" } } } } }),
    );
    expectValid(RULE, get({ "application/json": {} }), get({ "application/json": {} }));
    expectValid(
      RULE,
      get({ "application/json": { schema: {} } }),
      get({ "application/json": { schema: { description: "anything" } } }),
    );
    // 3.1 `true` and 3.0 `{}` are the same nothing.
    expectValid(
      RULE,
      get({ "application/json": { schema: {} } }),
      get({ "application/json": { schema: true } }, "3.1.0"),
    );
  });

  it("reports a media type kept without a schema, with {} or with only annotations, where the contract types the body", () => {
    for (const untyped of [
      { "application/json": {} },
      { "application/json": { schema: {} } },
      { "application/json": { schema: { description: "an order" } } },
    ]) {
      expectViolations(RULE, get(typed), get(untyped), [
        {
          location: "GET /orders#/responses/200/content/application~1json/schema",
          message: "status 200: the implementation declares application/json without a schema that constrains it",
        },
      ]);
    }
  });
});
