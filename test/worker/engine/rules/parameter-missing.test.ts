import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const contract = openapi({
  "/orders": {
    parameters: [{ name: "X-Tenant", in: "header", required: true, schema: { type: "string" } }],
    get: {
      parameters: [
        { name: "limit", in: "query", schema: { type: "integer" } },
        { name: "status", in: "query", schema: { type: "string" } },
        { name: "Accept", in: "header", schema: { type: "string" } },
      ],
      responses: responses({ "200": null }),
    },
  },
});

describe("parameter-missing", () => {
  it("accepts parameters declared on the operation instead of the path item, with header names in another case", () => {
    const snapshot = openapi({
      "/orders": {
        get: {
          parameters: [
            { name: "x-tenant", in: "header", required: true, schema: { type: "string" } },
            { name: "status", in: "query", schema: { type: "string" } },
            { name: "limit", in: "query", schema: { type: "integer" } },
          ],
          responses: responses({ "200": null }),
        },
      },
    });
    expectValid("parameter-missing", contract, snapshot);
  });

  it("reports contract parameters the implementation does not accept (Accept headers are ignored as OpenAPI says)", () => {
    const snapshot = openapi({
      "/orders": {
        get: {
          parameters: [{ name: "limit", in: "query", schema: { type: "integer" } }],
          responses: responses({ "200": null }),
        },
      },
    });
    expectViolations("parameter-missing", contract, snapshot, [
      { location: "GET /orders#/parameters/header/X-Tenant", message: 'header parameter "X-Tenant"' },
      { location: "GET /orders#/parameters/query/status", message: 'query parameter "status"' },
    ]);
  });
});
