import { describe, expect, it } from "vitest";
import { createPayloadValidator } from "../../../../src/engine/payload/payload";
import { convertToJsonSchema } from "../../../../src/engine/payload/payload-schema";
import { openapi } from "../harness";

const json = (schema: unknown, description = "ok") => ({ description, content: { "application/json": { schema } } });

const document = openapi(
  {
    "/orders": {
      get: { responses: { "200": json({ type: "array", items: { $ref: "#/components/schemas/Order" } }) } },
      post: {
        requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Order" } } } },
        responses: { "201": json({ $ref: "#/components/schemas/Order" }) },
      },
    },
    "/orders/summary": {
      get: {
        responses: { "200": json({ type: "object", required: ["count"], properties: { count: { type: "integer" } } }) },
      },
    },
    "/orders/{id}": {
      get: {
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": json({ $ref: "#/components/schemas/Order" }),
          "404": json({ $ref: "#/components/schemas/Problem" }),
          "4XX": json({ type: "object", required: ["range"], properties: { range: { type: "boolean" } } }),
          default: json({ type: "object", required: ["fallback"], properties: { fallback: { type: "boolean" } } }),
        },
      },
      delete: {
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "204": { description: "gone" },
          "409": { description: "conflict", content: { "text/plain": { schema: { type: "string" } } } },
        },
      },
    },
    "/categories/{id}": {
      get: {
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": json({ $ref: "#/components/schemas/Category" }) },
      },
    },
    "/escaped": {
      get: {
        responses: {
          "200": json({
            type: "object",
            properties: {
              a: { $ref: "#/components/schemas/a~1b" },
              b: { $ref: "#/components/schemas/tilde~0name" },
              c: { $ref: "#/components/schemas/with%20space" },
              d: { $ref: "#/components/schemas/%C3%BCmlaut" },
            },
          }),
        },
      },
    },
    "/numbers": {
      get: {
        responses: {
          "200": json({
            type: "object",
            properties: {
              small: { type: "integer", format: "int32" },
              big: { type: "integer", format: "int64" },
              positive: { type: "number", minimum: 0, exclusiveMinimum: true },
              belowTen: { type: "number", maximum: 10, exclusiveMaximum: true },
              upToTen: { type: "number", maximum: 10, exclusiveMaximum: false },
              color: { type: "string", enum: ["red", "blue"], nullable: true },
              siblingIgnored: { $ref: "#/components/schemas/Count", maximum: 1 },
            },
          }),
        },
      },
    },
  },
  {
    servers: [{ url: "https://api.example.com/v1" }],
    components: {
      schemas: {
        Order: {
          type: "object",
          required: ["id", "total", "secret"],
          properties: {
            id: { type: "string", readOnly: true },
            total: { type: "number" },
            note: { type: "string", nullable: true },
            secret: { type: "string", writeOnly: true },
            lines: {
              type: "array",
              items: {
                type: "object",
                required: ["sku"],
                properties: { sku: { type: "string" }, quantity: { type: "integer", minimum: 1 } },
              },
            },
          },
        },
        Problem: { type: "object", required: ["title"], properties: { title: { type: "string" } } },
        Category: {
          type: "object",
          required: ["name"],
          properties: {
            name: { type: "string" },
            children: { type: "array", items: { $ref: "#/components/schemas/Category" } },
          },
        },
        "a/b": { type: "string" },
        "tilde~name": { type: "integer" },
        "with space": { type: "boolean" },
        ümlaut: { type: "number" },
        Count: { type: "integer" },
      },
    },
  },
);

const order = { id: "ord_1001", total: 12.5, note: null, lines: [{ sku: "A-1", quantity: 2 }] };

describe("payload validation", () => {
  it("accepts a conforming payload for a concrete path, a template, and the path with the server base path", () => {
    const validator = createPayloadValidator();
    for (const path of ["/orders/ord_1001", "/orders/{id}", "/orders/{orderId}", "/v1/orders/ord_1001"]) {
      expect(validator.validate(document, "v1", { method: "get", path, status: 200, payload: order })).toEqual({
        approved: true,
        operation: "GET /orders/{id}",
        responseKey: "200",
        errors: [],
        violations: [],
      });
    }
    expect(
      validator.validate(document, "v1", { method: "GET", path: "/orders/summary", status: 200, payload: { count: 3 } })
        .operation,
    ).toBe("GET /orders/summary");
  });

  it("reports only leaf errors, each with its JSON pointer, keyword and message", () => {
    const result = createPayloadValidator().validate(document, "v1", {
      method: "GET",
      path: "/orders",
      status: 200,
      payload: [order, { id: 7, total: "12", lines: [{ quantity: 0 }] }],
    });
    expect(result.approved).toBe(false);
    expect(result.errors.map(({ pointer, keyword }) => `${pointer} ${keyword}`).sort()).toEqual([
      "/1/id type",
      "/1/lines/0 required",
      "/1/lines/0/quantity minimum",
      "/1/total type",
    ]);
    expect(result.errors.find((error) => error.pointer === "/1/lines/0")?.message).toContain('"sku"');
  });

  it("chooses the response entry by exact code, then range, then default", () => {
    const validator = createPayloadValidator();
    expect(
      validator.validate(document, "v1", {
        method: "GET",
        path: "/orders/x",
        status: 404,
        payload: { title: "Not found" },
      }),
    ).toMatchObject({ approved: true, responseKey: "404" });
    expect(
      validator.validate(document, "v1", { method: "GET", path: "/orders/x", status: 410, payload: { range: true } }),
    ).toMatchObject({ approved: true, responseKey: "4XX" });
    expect(
      validator.validate(document, "v1", {
        method: "GET",
        path: "/orders/x",
        status: 503,
        payload: { fallback: true },
      }),
    ).toMatchObject({ approved: true, responseKey: "default" });
    expect(
      validator.validate(document, "v1", { method: "GET", path: "/orders/x", status: 503, payload: { range: true } })
        .errors,
    ).toEqual([{ pointer: "", keyword: "required", message: expect.stringContaining("fallback") }]);
  });

  it("rejects with missing-schema when the response declares no JSON schema, and explains unknown operations and statuses", () => {
    const validator = createPayloadValidator();
    expect(
      validator.validate(document, "v1", { method: "DELETE", path: "/orders/x", status: 204, payload: {} }),
    ).toMatchObject({
      approved: false,
      responseKey: "204",
      violations: [{ rule: "missing-schema", location: "DELETE /orders/{id}#/responses/204" }],
    });
    expect(
      validator.validate(document, "v1", { method: "DELETE", path: "/orders/x", status: 409, payload: "busy" })
        .violations[0]?.rule,
    ).toBe("missing-schema");
    expect(
      validator.validate(document, "v1", { method: "PATCH", path: "/orders/x", status: 200, payload: {} })
        .violations[0],
    ).toMatchObject({ rule: "undocumented-operation", message: expect.stringContaining("PATCH /orders/x") });
    expect(
      validator.validate(document, "v1", { method: "POST", path: "/orders", status: 500, payload: {} }).violations[0]
        ?.rule,
    ).toBe("undocumented-status-code");
    expect(
      validator.validate(document, "v1", { method: "POST", path: "/orders", status: 201, payload: undefined })
        .violations[0]?.rule,
    ).toBe("payload-missing");
  });

  it("validates recursive schemas at any depth", () => {
    const validator = createPayloadValidator();
    const tree = { name: "root", children: [{ name: "a", children: [{ name: "b", children: [{ name: 3 }] }] }] };
    expect(
      validator.validate(document, "v1", { method: "GET", path: "/categories/c1", status: 200, payload: tree }).errors,
    ).toEqual([{ pointer: "/children/0/children/0/children/0/name", keyword: "type", message: expect.any(String) }]);
  });

  it("resolves component names that need JSON Pointer escaping", () => {
    const validator = createPayloadValidator();
    expect(
      validator.validate(document, "v1", {
        method: "GET",
        path: "/escaped",
        status: 200,
        payload: { a: "x", b: 1, c: true, d: 1.5 },
      }).approved,
    ).toBe(true);
    expect(
      validator
        .validate(document, "v1", {
          method: "GET",
          path: "/escaped",
          status: 200,
          payload: { a: 1, b: "x", c: "x", d: "x" },
        })
        .errors.map((error) => error.pointer)
        .sort(),
    ).toEqual(["/a", "/b", "/c", "/d"]);
  });

  it("reads OpenAPI 3.0 as 3.0: nullable (with enum), boolean exclusive bounds, ignored $ref siblings, int32/int64 ranges", () => {
    const validator = createPayloadValidator();
    const check = (payload: Record<string, unknown>) =>
      validator
        .validate(document, "v1", { method: "GET", path: "/numbers", status: 200, payload })
        .errors.map(({ pointer, keyword }) => `${pointer} ${keyword}`);
    expect(
      check({
        small: 2147483647,
        big: 9007199254740991,
        positive: 0.1,
        belowTen: 9.9,
        upToTen: 10,
        color: null,
        siblingIgnored: 5,
      }),
    ).toEqual([]);
    expect(check({ color: "blue" })).toEqual([]);
    expect(check({ small: 2147483648 })).toEqual(["/small maximum"]);
    expect(check({ small: -2147483649 })).toEqual(["/small minimum"]);
    expect(check({ big: 1e19 })).toEqual(["/big maximum"]);
    expect(check({ positive: 0 })).toEqual(["/positive exclusiveMinimum"]);
    expect(check({ belowTen: 10 })).toEqual(["/belowTen exclusiveMaximum"]);
    expect(check({ color: "green" })).toEqual(["/color enum"]);
    expect(check({ siblingIgnored: 1.5 })).toEqual(["/siblingIgnored type"]);
  });

  it("applies readOnly/writeOnly by direction: a writeOnly property is not required in a response and must not appear", () => {
    const validator = createPayloadValidator();
    expect(
      validator.validate(document, "v1", { method: "GET", path: "/orders/1", status: 200, payload: order }).approved,
    ).toBe(true);
    expect(
      validator.validate(document, "v1", {
        method: "GET",
        path: "/orders/1",
        status: 200,
        payload: { ...order, secret: "hunter2" },
      }).errors,
    ).toEqual([
      { pointer: "/secret", keyword: "writeOnly", message: "property is writeOnly: it must not appear in a response" },
    ]);
    const request = convertToJsonSchema(document, { $ref: "#/components/schemas/Order" }, "3.0", "request").schema as {
      $defs: Record<string, { required: string[]; properties: Record<string, unknown> }>;
    };
    expect(request.$defs.d0?.required).toEqual(["total", "secret"]);
    expect(request.$defs.d0?.properties.id).toMatchObject({ not: {} });
  });

  it("reads OpenAPI 3.1 schemas as JSON Schema 2020-12 (type arrays, $ref siblings apply)", () => {
    const v31 = openapi(
      {
        "/x": {
          get: {
            responses: {
              "200": json({
                type: "object",
                properties: {
                  n: { type: ["integer", "null"] },
                  capped: { $ref: "#/components/schemas/Count", maximum: 3 },
                },
              }),
            },
          },
        },
      },
      { components: { schemas: { Count: { type: "integer" } } } },
      "3.1.0",
    );
    const validator = createPayloadValidator();
    expect(
      validator.validate(v31, "v31", { method: "GET", path: "/x", status: 200, payload: { n: null, capped: 3 } })
        .approved,
    ).toBe(true);
    expect(
      validator
        .validate(v31, "v31", { method: "GET", path: "/x", status: 200, payload: { n: "1", capped: 4 } })
        .errors.map(({ pointer, keyword }) => `${pointer} ${keyword}`),
    ).toEqual(["/n type", "/capped maximum"]);
  });

  it("builds a validator once per document key, operation and response; another key builds again", () => {
    const validator = createPayloadValidator();
    expect(validator.buildCount).toBe(0);
    for (let round = 0; round < 5; round++)
      validator.validate(document, "hash-a", {
        method: "GET",
        path: `/orders/ord_${round}`,
        status: 200,
        payload: order,
      });
    expect(validator.buildCount).toBe(1);
    validator.validate(document, "hash-a", {
      method: "GET",
      path: "/orders/ord_1",
      status: 404,
      payload: { title: "x" },
    });
    expect(validator.buildCount).toBe(2);
    validator.validate(document, "hash-a", {
      method: "GET",
      path: "/orders/{id}",
      status: 200,
      payload: { bad: true },
    });
    expect(validator.buildCount).toBe(2);
    validator.validate(document, "hash-b", { method: "GET", path: "/orders/ord_1", status: 200, payload: order });
    expect(validator.buildCount).toBe(3);
  });

  it("does not mutate the document", () => {
    const before = JSON.stringify(document);
    createPayloadValidator().validate(document, "v1", {
      method: "GET",
      path: "/orders",
      status: 200,
      payload: [order],
    });
    expect(JSON.stringify(document)).toBe(before);
  });

  it("refuses deeply nested payloads without overflowing the stack", () => {
    let payload: unknown = { name: "leaf" };
    for (let depth = 0; depth < 100_000; depth++) payload = { name: "n", children: [payload] };
    const result = createPayloadValidator().validate(document, "v1", {
      method: "GET",
      path: "/categories/1",
      status: 200,
      payload,
    });
    expect(result).toMatchObject({ approved: false, violations: [{ rule: "payload-too-deep" }] });
  });
});
