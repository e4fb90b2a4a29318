import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const contract = openapi({
  "/orders/{id}": {
    get: {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } }],
      responses: responses({ "200": { type: "object", properties: { placedAt: { type: "string", format: "date-time" }, total: { type: "number" } } } }),
    },
  },
});

describe("schema-format", () => {
  it("accepts the same formats, and formats only the implementation declares", () => {
    expectValid("schema-format", contract, openapi({
      "/orders/{id}": {
        get: {
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } }],
          responses: responses({ "200": { type: "object", properties: { placedAt: { type: "string", format: "date-time" }, total: { type: "number", format: "double" } } } }),
        },
      },
    }));
  });

  it("reports formats that differ in parameters and bodies", () => {
    expectViolations("schema-format", contract, openapi({
      "/orders/{id}": {
        get: {
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer", format: "int32" } }],
          responses: responses({ "200": { type: "object", properties: { placedAt: { type: "string", format: "date" } } } }),
        },
      },
    }), [
      { location: "GET /orders/{id}#/parameters/path/id/schema", message: "format is \"int64\" in the contract but \"int32\"" },
      { location: "GET /orders/{id}#/responses/200/content/application~1json/schema/properties/placedAt", message: "format is \"date-time\" in the contract but \"date\"" },
    ]);
  });
});
