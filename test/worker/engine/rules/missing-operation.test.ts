import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const contract = openapi(
  {
    "/orders": { get: { responses: responses({ "200": null }) }, post: { responses: responses({ "201": null }) } },
    "/orders/{orderId}": {
      get: {
        parameters: [{ name: "orderId", in: "path", required: true, schema: { type: "string" } }],
        responses: responses({ "200": null }),
      },
    },
  },
  { servers: [{ url: "https://api.example.com/v1" }] },
);

describe("missing-operation", () => {
  it("accepts an implementation with other parameter names, trailing slashes and the base path written in the paths", () => {
    const snapshot = openapi({
      "/v1/orders/": {
        get: { responses: responses({ "200": null }) },
        post: { responses: responses({ "201": null }) },
      },
      "/v1/orders/{id}": {
        get: {
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: responses({ "200": null }),
        },
      },
    });
    expectValid("missing-operation", contract, snapshot);
  });

  it("accepts an implementation served under another base path", () => {
    const snapshot = openapi(
      {
        "/orders": { get: { responses: responses({ "200": null }) }, post: { responses: responses({ "201": null }) } },
        "/orders/{id}": {
          get: {
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
            responses: responses({ "200": null }),
          },
        },
      },
      { servers: [{ url: "http://localhost:5000" }] },
    );
    expectValid("missing-operation", contract, snapshot);
  });

  it("reports each contract operation the implementation lacks, by method", () => {
    const snapshot = openapi({ "/v1/orders": { get: { responses: responses({ "200": null }) } } });
    expectViolations("missing-operation", contract, snapshot, [
      { location: "GET /orders/{orderId}", message: "does not expose it" },
      { location: "POST /orders", message: "the contract declares POST /orders" },
    ]);
  });
});
