import { describe, expect, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const RULE = "request-body-schema-missing";
const post = (content: Record<string, unknown>) =>
  openapi({ "/orders": { post: { requestBody: { content }, responses: responses({ "204": null }) } } });
const typed = {
  "application/json": { schema: { type: "object", required: ["sku"], properties: { sku: { type: "string" } } } },
};

describe("request-body-schema-missing", () => {
  it("accepts a schema on both sides, and an untyped contract body", () => {
    expectValid(RULE, post(typed), post(typed));
    expectValid(RULE, post({ "application/json": {} }), post({ "application/json": { schema: {} } }));
  });

  it("warns about a media type kept without a schema where the contract types the body (accepting anything refuses no client)", () => {
    const violations = expectViolations(RULE, post(typed), post({ "application/json": {} }), [
      {
        location: "POST /orders#/requestBody/content/application~1json/schema",
        message: "the implementation declares application/json without a schema that constrains it",
      },
    ]);
    expect(violations[0]?.severity).toBe("warning");
  });
});
