import { describe, it } from "vitest";
import { expectValid, expectViolations, openapi, responses } from "../harness";

const contract = openapi({
  "/orders/{id}": {
    get: {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } }],
      responses: responses({
        "200": {
          type: "object",
          properties: { placedAt: { type: "string", format: "date-time" }, total: { type: "number" } },
        },
      }),
    },
  },
});

describe("schema-format", () => {
  it("accepts the same formats, and formats only the implementation declares", () => {
    expectValid(
      "schema-format",
      contract,
      openapi({
        "/orders/{id}": {
          get: {
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } }],
            responses: responses({
              "200": {
                type: "object",
                properties: {
                  placedAt: { type: "string", format: "date-time" },
                  total: { type: "number", format: "double" },
                },
              },
            }),
          },
        },
      }),
    );
  });

  it("accepts a wider request format and a narrower response format; annotation-only and one-sided formats stay quiet", () => {
    const both = (parameterFormat: string, linkFormat: string, amountFormat: string) =>
      openapi({
        "/orders/{id}": {
          get: {
            parameters: [
              { name: "id", in: "path", required: true, schema: { type: "integer", format: parameterFormat } },
            ],
            responses: responses({
              "200": {
                type: "object",
                properties: {
                  link: { type: "string", format: linkFormat },
                  amount: { type: "number", format: amountFormat },
                },
              },
            }),
          },
        },
      });
    // Request int32 -> int64 accepts more; response uri-reference -> uri returns less; double -> float is an annotation.
    expectValid("schema-format", both("int32", "uri-reference", "double"), both("int64", "uri", "float"));
    // Annotation-only formats (byte, password, custom) compare with nothing.
    expectValid("schema-format", both("int64", "uri", "double"), both("int64", "x-custom-link", "decimal"));
  });

  it("reports a narrower request format and a wider response format", () => {
    const both = (parameterFormat: string, emailFormat: string) =>
      openapi({
        "/orders/{id}": {
          post: {
            parameters: [
              { name: "id", in: "path", required: true, schema: { type: "string", format: parameterFormat } },
            ],
            requestBody: {
              content: {
                "application/json": {
                  schema: { type: "object", properties: { contact: { type: "string", format: emailFormat } } },
                },
              },
            },
            responses: responses({
              "200": { type: "object", properties: { contact: { type: "string", format: emailFormat } } },
            }),
          },
        },
      });
    expectViolations("schema-format", both("uri-reference", "email"), both("uri", "hostname"), [
      {
        location: "POST /orders/{id}#/parameters/path/id/schema",
        message:
          'path parameter "id": format is "uri-reference" in the contract but "uri" in the implementation, so it refuses values the contract allows',
      },
      {
        location: "POST /orders/{id}#/requestBody/content/application~1json/schema/properties/contact",
        message:
          'format is "email" in the contract but "hostname" in the implementation, so it refuses values the contract allows',
      },
      {
        location: "POST /orders/{id}#/responses/200/content/application~1json/schema/properties/contact",
        message:
          'format is "email" in the contract but "hostname" in the implementation, so it may return values the contract does not allow',
      },
    ]);
  });

  it("reports a response integer format wider than the contract's", () => {
    const get = (format: string) =>
      openapi({
        "/orders": {
          get: {
            responses: responses({ "200": { type: "object", properties: { count: { type: "integer", format } } } }),
          },
        },
      });
    expectValid("schema-format", get("int64"), get("int32"));
    expectViolations("schema-format", get("int32"), get("int64"), [
      {
        location: "GET /orders#/responses/200/content/application~1json/schema/properties/count",
        message:
          'format is "int32" in the contract but "int64" in the implementation, so it may return values the contract does not allow',
      },
    ]);
  });

  it("reports formats that differ in parameters and bodies", () => {
    expectViolations(
      "schema-format",
      contract,
      openapi({
        "/orders/{id}": {
          get: {
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer", format: "int32" } }],
            responses: responses({
              "200": { type: "object", properties: { placedAt: { type: "string", format: "date" } } },
            }),
          },
        },
      }),
      [
        {
          location: "GET /orders/{id}#/parameters/path/id/schema",
          message: 'format is "int64" in the contract but "int32"',
        },
        {
          location: "GET /orders/{id}#/responses/200/content/application~1json/schema/properties/placedAt",
          message: 'format is "date-time" in the contract but "date"',
        },
      ],
    );
  });
});

describe("schema-format on text parameters the contract leaves free", () => {
  const withParameters = (parameters: unknown[]) =>
    openapi({ "/orders/{id}": { get: { parameters, responses: responses({ "200": null }) } } });
  const free = withParameters([
    { name: "id", in: "path", required: true, schema: { type: "string" } },
    { name: "since", in: "query", schema: { type: "string" } },
    { name: "X-Request-Id", in: "header", schema: {} },
    { name: "count", in: "query", schema: { type: "integer" } },
  ]);

  it("accepts the same free parameters, integer formats generators add, and a format the contract already sets", () => {
    expectValid(
      "schema-format",
      free,
      withParameters([
        { name: "id", in: "path", required: true, schema: { type: "string" } },
        { name: "since", in: "query", schema: { type: "string", format: "password" } },
        { name: "X-Request-Id", in: "header", schema: { type: "string" } },
        { name: "count", in: "query", schema: { type: "integer", format: "int32" } },
      ]),
    );
    const uuid = withParameters([
      { name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } },
    ]);
    expectValid("schema-format", uuid, uuid);
  });

  it("reports a constraining format added to a path, query or header parameter", () => {
    expectViolations(
      "schema-format",
      free,
      withParameters([
        { name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } },
        { name: "since", in: "query", schema: { type: "string", format: "date-time" } },
        { name: "x-request-id", in: "header", schema: { type: "string", format: "uuid" } },
        { name: "count", in: "query", schema: { type: "integer" } },
      ]),
      [
        {
          location: "GET /orders/{id}#/parameters/header/X-Request-Id/schema",
          message:
            'header parameter "X-Request-Id": the implementation sets format "uuid", which the contract leaves free, so it refuses values the contract allows',
        },
        {
          location: "GET /orders/{id}#/parameters/path/id/schema",
          message: 'path parameter "id": the implementation sets format "uuid"',
        },
        {
          location: "GET /orders/{id}#/parameters/query/since/schema",
          message: 'query parameter "since": the implementation sets format "date-time"',
        },
      ],
    );
  });
});
