import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const contract = openapi({
  "/orders": {
    get: {
      parameters: [
        { name: "limit", in: "query", schema: { type: "integer" } },
        { name: "status", in: "query", required: true, schema: { type: "string" } },
      ],
      responses: responses({ "200": null }),
    },
  },
});

describe("parameter-required", () => {
  it("accepts the same required-ness, and a contract-required parameter the implementation makes optional", () => {
    expectValid(
      "parameter-required",
      contract,
      openapi({
        "/orders": {
          get: {
            parameters: [
              { name: "limit", in: "query", schema: { type: "integer" } },
              { name: "status", in: "query", schema: { type: "string" } },
            ],
            responses: responses({ "200": null }),
          },
        },
      }),
    );
  });

  it("reports an optional parameter that became required", () => {
    expectViolations(
      "parameter-required",
      contract,
      openapi({
        "/orders": {
          get: {
            parameters: [
              { name: "limit", in: "query", required: true, schema: { type: "integer" } },
              { name: "status", in: "query", required: true, schema: { type: "string" } },
            ],
            responses: responses({ "200": null }),
          },
        },
      }),
      [
        {
          location: "GET /orders#/parameters/query/limit",
          message: "optional in the contract but required by the implementation",
        },
      ],
    );
  });
});
