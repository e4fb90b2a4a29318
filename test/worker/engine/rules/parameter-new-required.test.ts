import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const contract = openapi({
  "/orders": {
    get: {
      parameters: [{ name: "limit", in: "query", schema: { type: "integer" } }],
      responses: responses({ "200": null }),
    },
  },
});

describe("parameter-new-required", () => {
  it("accepts extra optional parameters", () => {
    expectValid(
      "parameter-new-required",
      contract,
      openapi({
        "/orders": {
          get: {
            parameters: [
              { name: "limit", in: "query", schema: { type: "integer" } },
              { name: "cursor", in: "query", schema: { type: "string" } },
            ],
            responses: responses({ "200": null }),
          },
        },
      }),
    );
  });

  it("reports a required parameter the contract does not define", () => {
    expectViolations(
      "parameter-new-required",
      contract,
      openapi({
        "/orders": {
          get: {
            parameters: [
              { name: "limit", in: "query", schema: { type: "integer" } },
              { name: "X-Api-Version", in: "header", required: true, schema: { type: "string" } },
            ],
            responses: responses({ "200": null }),
          },
        },
      }),
      [
        {
          location: "GET /orders#/parameters/header/X-Api-Version",
          message: 'requires header parameter "X-Api-Version"',
        },
      ],
    );
  });
});
