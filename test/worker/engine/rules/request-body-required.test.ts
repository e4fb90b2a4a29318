import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const withBody = (required: boolean | undefined) =>
  openapi({
    "/orders": {
      put: {
        requestBody: {
          ...(required === undefined ? {} : { required }),
          content: { "application/json": { schema: { type: "object" } } },
        },
        responses: responses({ "200": null }),
      },
    },
  });

describe("request-body-required", () => {
  it("accepts a required body where the contract requires it, and an optional one where it is optional", () => {
    expectValid("request-body-required", withBody(true), withBody(true));
    expectValid("request-body-required", withBody(undefined), withBody(false));
    expectValid("request-body-required", withBody(true), withBody(undefined));
  });

  it("reports a body the implementation requires but the contract makes optional or does not define", () => {
    expectViolations("request-body-required", withBody(false), withBody(true), [
      { location: "PUT /orders#/requestBody/required", message: "optional in the contract but required" },
    ]);
    expectViolations(
      "request-body-required",
      openapi({ "/orders": { put: { responses: responses({ "200": null }) } } }),
      withBody(true),
      [{ location: "PUT /orders#/requestBody", message: "the contract defines none" }],
    );
  });
});
