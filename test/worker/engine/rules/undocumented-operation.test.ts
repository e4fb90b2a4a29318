import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const contract = openapi({
  "/orders/{id}": {
    get: {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      responses: responses({ "200": null }),
    },
  },
});

describe("undocumented-operation", () => {
  it("accepts an implementation exposing exactly the contract", () => {
    expectValid(
      "undocumented-operation",
      contract,
      openapi({
        "/orders/{orderId}/": {
          get: {
            parameters: [{ name: "orderId", in: "path", required: true, schema: { type: "string" } }],
            responses: responses({ "200": null }),
          },
        },
      }),
    );
  });

  it("reports operations the contract does not declare, with the implementation's template", () => {
    const snapshot = openapi({
      "/orders/{id}": {
        get: {
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: responses({ "200": null }),
        },
        delete: {
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: responses({ "204": null }),
        },
      },
      "/admin/reset": { post: { responses: responses({ "204": null }) } },
    });
    expectViolations("undocumented-operation", contract, snapshot, [
      {
        location: "DELETE /orders/{id}",
        message:
          'which the contract does not declare: add it to the contract or remove it (an organization that allows operations ahead of the contract sets "undocumented-operation" to "warning" or adds an exemption in policies/conformance.json)',
      },
      { location: "POST /admin/reset", message: "which the contract does not declare" },
    ]);
  });
});
