import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const contract = openapi({
  "/orders/{id}": {
    get: {
      parameters: [
        { name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } },
        { name: "status", in: "query", schema: { type: "string", enum: ["open", "paid"] } },
        { name: "price", in: "query", schema: { type: "number" } },
      ],
      responses: responses({ "200": null }),
    },
  },
});

describe("parameter-schema", () => {
  it("accepts ASP.NET-style [integer, string] with a pattern, a wider enum and a wider type", () => {
    const snapshot = openapi({
      "/orders/{orderId}": {
        get: {
          parameters: [
            { name: "orderId", in: "path", required: true, schema: { type: ["integer", "string"], pattern: "^-?(?:0|[1-9]\\d*)$", format: "int64" } },
            { name: "status", in: "query", schema: { type: "string", enum: ["open", "paid", "cancelled"] } },
            { name: "price", in: "query", schema: { type: "number", format: "double" } },
          ],
          responses: responses({ "200": null }),
        },
      },
    }, {}, "3.1.0");
    expectValid("parameter-schema", contract, snapshot);
  });

  it("reports a changed type, a removed enum value and a narrowed number", () => {
    const snapshot = openapi({
      "/orders/{orderId}": {
        get: {
          parameters: [
            { name: "orderId", in: "path", required: true, schema: { type: "string" } },
            { name: "status", in: "query", schema: { type: "string", enum: ["open"] } },
            { name: "price", in: "query", schema: { type: "integer" } },
          ],
          responses: responses({ "200": null }),
        },
      },
    });
    expectViolations("parameter-schema", contract, snapshot, [
      { location: "GET /orders/{id}#/parameters/path/id/schema", message: "type is integer in the contract but string in the implementation" },
      { location: "GET /orders/{id}#/parameters/query/price/schema", message: "type is number in the contract but integer in the implementation" },
      { location: "GET /orders/{id}#/parameters/query/status/schema", message: "does not accept \"paid\"" },
    ]);
  });
});
