import { describe, it } from "vitest";
import { expectConstitutionValid, expectConstitutionViolations, openapi, responses } from "../harness";

const pattern = "^[a-z][a-zA-Z0-9]*$";

describe("operation-id-pattern", () => {
  it("accepts matching operationIds, and missing ones unless required (generators such as ASP.NET Core emit none)", () => {
    expectConstitutionValid(
      "operation-id-pattern",
      { pattern },
      openapi({
        "/orders": {
          get: { operationId: "listOrders", responses: responses({ "200": null }) },
          post: { responses: responses({ "201": null }) },
        },
      }),
    );
  });

  it("reports operationIds that do not match, and missing ones when required", () => {
    expectConstitutionViolations(
      "operation-id-pattern",
      { pattern, required: true },
      openapi({
        "/orders": {
          get: { operationId: "List_Orders", responses: responses({ "200": null }) },
          post: { responses: responses({ "201": null }) },
        },
      }),
      [
        { location: "GET /orders#/operationId", message: 'operationId "List_Orders" does not match' },
        { location: "POST /orders", message: "has no operationId" },
      ],
    );
  });
});
