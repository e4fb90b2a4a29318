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
    const snapshot = openapi(
      {
        "/orders/{orderId}": {
          get: {
            parameters: [
              {
                name: "orderId",
                in: "path",
                required: true,
                schema: { type: ["integer", "string"], pattern: "^-?(?:0|[1-9]\\d*)$", format: "int64" },
              },
              { name: "status", in: "query", schema: { type: "string", enum: ["open", "paid", "cancelled"] } },
              { name: "price", in: "query", schema: { type: "number", format: "double" } },
            ],
            responses: responses({ "200": null }),
          },
        },
      },
      {},
      "3.1.0",
    );
    expectValid("parameter-schema", contract, snapshot);
  });

  it("never compares null for parameters written with a style (text on the wire), only for those described by content", () => {
    const list = (parameters: unknown[]) =>
      openapi({ "/alerts": { get: { parameters, responses: responses({ "200": null }) } } });
    // GitHub's code-scanning alert state: nullable: true with an enum that lists no null, which does not accept null.
    const state = { type: "string", nullable: true, enum: ["open", "dismissed", "fixed"] };
    expectValid(
      "parameter-schema",
      list([
        { name: "state", in: "query", schema: state },
        { name: "X-Trace", in: "header", schema: { type: "string", nullable: true } },
      ]),
      openapi(
        {
          "/alerts": {
            get: {
              parameters: [
                { name: "state", in: "query", schema: { type: "string", enum: ["open", "dismissed", "fixed"] } },
                { name: "X-Trace", in: "header", schema: { type: "string" } },
              ],
              responses: responses({ "200": null }),
            },
          },
        },
        {},
        "3.1.0",
      ),
    );
    const filter = (schema: unknown) =>
      list([{ name: "filter", in: "query", content: { "application/json": { schema } } }]);
    expectViolations("parameter-schema", filter({ type: "object", nullable: true }), filter({ type: "object" }), [
      {
        location: "GET /alerts#/parameters/query/filter/schema",
        message: 'query parameter "filter": the contract allows null here but the implementation does not accept it',
      },
    ]);
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
      {
        location: "GET /orders/{id}#/parameters/path/id/schema",
        message: "type is integer in the contract but string in the implementation",
      },
      {
        location: "GET /orders/{id}#/parameters/query/price/schema",
        message: "type is number in the contract but integer in the implementation",
      },
      { location: "GET /orders/{id}#/parameters/query/status/schema", message: 'does not accept "paid"' },
    ]);
  });
});

describe("parameter-schema for object-valued parameters", () => {
  const filter = (schema: unknown, version = "3.0.3") =>
    openapi(
      {
        "/orders": {
          get: {
            parameters: [{ name: "filter", in: "query", style: "deepObject", explode: true, schema }],
            responses: responses({ "200": null }),
          },
        },
      },
      {},
      version,
    );
  const contractFilter = {
    type: "object",
    required: ["from"],
    properties: { from: { type: "string" }, to: { type: "string" } },
  };

  it("accepts the same required properties, also written through allOf or in 3.1", () => {
    expectValid(
      "parameter-schema",
      filter(contractFilter),
      filter({
        allOf: [
          { type: "object", properties: { from: { type: "string" }, to: { type: "string" } } },
          { required: ["from"] },
        ],
      }),
    );
    expectValid("parameter-schema", filter(contractFilter), filter({ ...contractFilter, required: [] }, "3.1.0"));
  });

  it("reports a property the implementation newly requires", () => {
    expectViolations(
      "parameter-schema",
      filter(contractFilter),
      filter({ ...contractFilter, required: ["from", "to"] }),
      [
        {
          location: "GET /orders#/parameters/query/filter/schema/properties/to",
          message:
            'query parameter "filter": the implementation requires property "to", which the contract makes optional',
        },
      ],
    );
  });
});
