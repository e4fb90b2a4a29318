/**
 * OpenAPI 3.1 references read as JSON Schema 2020-12 reads them (src/engine/normalize/schema-resources.ts), where an
 * upload, the verdict and payload validation meet them: `$id` bases, `$anchor`, relative and URN references in
 * one document; other documents refused; `$ref` inside data left alone; `$dynamicRef` followed or refused by name.
 */
import { stringify as toYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { parseOpenApiDocument } from "../../../../src/engine/load/document";
import { createPayloadValidator } from "../../../../src/engine/payload/payload";
import { expectValid, expectViolations } from "../harness";
import type { OpenApiDocument } from "../../../../src/engine/types";

const RESPONSE = "GET /orders#/responses/200/content/application~1json/schema";

function documentOf(schemas: Record<string, unknown>, schema: unknown, version = "3.1.0"): Record<string, unknown> {
  return {
    openapi: version,
    info: { title: "Orders", version: "1" },
    paths: {
      "/orders": { get: { responses: { "200": { description: "ok", content: { "application/json": { schema } } } } } },
    },
    components: { schemas },
  };
}

function upload(document: Record<string, unknown>, yaml = false): OpenApiDocument {
  const parsed = parseOpenApiDocument(yaml ? toYaml(document) : JSON.stringify(document));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.document;
}

function refused(document: Record<string, unknown>): string[] {
  const parsed = parseOpenApiDocument(JSON.stringify(document));
  return parsed.ok ? [] : parsed.problems.map((problem) => `${problem.path}: ${problem.message}`);
}

// One order schema written with identifiers: a resource with a URN `$id`, an `$anchor`, a relative reference
// inside it, and a reference by file name to another resource of the same document.
const withIdentifiers = documentOf(
  {
    Order: {
      $id: "urn:example:order",
      type: "object",
      required: ["id", "lines"],
      properties: {
        id: { type: "string" },
        lines: { type: "array", items: { $ref: "#line" } },
        total: { $ref: "https://example.com/schemas/money.json" },
      },
      $defs: {
        line: {
          $anchor: "line",
          type: "object",
          required: ["sku"],
          properties: { sku: { type: "string" }, qty: { $ref: "#/$defs/quantity" } },
        },
        quantity: { type: "integer", minimum: 1 },
      },
    },
    Money: { $id: "https://example.com/schemas/money.json", type: "number", minimum: 0 },
    // "money.json" is relative to this resource's https base (it could not be resolved against a URN).
    Root: {
      $id: "https://example.com/schemas/order-root.json",
      $ref: "urn:example:order",
      properties: { total: { $ref: "money.json" } },
    },
  },
  { $ref: "https://example.com/schemas/order-root.json" },
);
// The same schema with plain pointers only.
const plain = documentOf(
  {
    Order: {
      type: "object",
      required: ["id", "lines"],
      properties: {
        id: { type: "string" },
        lines: { type: "array", items: { $ref: "#/components/schemas/Line" } },
        total: { $ref: "#/components/schemas/Money" },
      },
    },
    Line: {
      type: "object",
      required: ["sku"],
      properties: { sku: { type: "string" }, qty: { type: "integer", minimum: 1 } },
    },
    Money: { type: "number", minimum: 0 },
  },
  { $ref: "#/components/schemas/Order" },
);

describe("3.1 schema resources at upload", () => {
  it("accepts $id bases, $anchor, relative, absolute and URN references inside the document (JSON and YAML)", () => {
    expect(refused(withIdentifiers)).toEqual([]);
    expect(() => upload(withIdentifiers, true)).not.toThrow();
  });

  it("still refuses references to other documents and unknown anchors, saying why", () => {
    const other = documentOf(
      { Order: { $id: "https://example.com/schemas/order.json", properties: { customer: { $ref: "customer.json" } } } },
      { $ref: "#/components/schemas/Order" },
    );
    expect(refused(other)).toEqual([
      '/components/schemas/Order/properties/customer/$ref: external $ref "customer.json" is not allowed: it points to another document (no $id in this document names it); bundle the document into one file first (for example `redocly bundle`)',
    ]);
    const anchor = documentOf(
      { Order: { $id: "urn:example:order", properties: { line: { $ref: "#nowhere" } } } },
      { $ref: "#/components/schemas/Order" },
    );
    expect(refused(anchor)[0]).toMatch(
      /\$ref "#nowhere" names an anchor that no \$anchor \(or \$id\) in this document defines/,
    );
  });

  it("reads a $ref member of enum, const, default and example values as data", () => {
    const data = documentOf(
      {
        Link: {
          type: "object",
          enum: [{ $ref: "other.json" }],
          const: { $ref: "#/nowhere" },
          default: { $ref: "elsewhere.json" },
          example: { $ref: "x.json" },
        },
      },
      { $ref: "#/components/schemas/Link" },
    );
    expect(refused(data)).toEqual([]);
    expect(refused({ ...data, openapi: "3.0.3" })).toEqual([]);
  });

  it("refuses a $dynamicRef whose target is not in the document, naming it", () => {
    const dynamic = documentOf(
      { List: { $id: "urn:example:list", type: "array", items: { $dynamicRef: "urn:example:elsewhere#item" } } },
      { $ref: "#/components/schemas/List" },
    );
    expect(refused(dynamic)[0]).toMatch(/\$dynamicRef "urn:example:elsewhere#item" does not resolve/);
  });
});

describe("3.1 schema resources in the verdict and in payload validation", () => {
  it("compares a schema written with identifiers equal to the same schema written with pointers, both ways", () => {
    for (const rule of ["response-type", "response-required-property", "response-constraint"]) {
      expectValid(rule, upload(withIdentifiers), upload(plain));
      expectValid(rule, upload(plain), upload(withIdentifiers));
    }
  });

  it("finds a change behind an anchor and a relative reference", () => {
    const changed = structuredClone(withIdentifiers) as {
      components: { schemas: { Order: { $defs: { quantity: Record<string, unknown> } } } };
    };
    changed.components.schemas.Order.$defs.quantity = { type: "string" };
    expectViolations("response-type", upload(plain), upload(changed as unknown as Record<string, unknown>), [
      {
        location: `${RESPONSE}/properties/lines/items/properties/qty`,
        message: "type is integer in the contract but string in the implementation",
      },
    ]);
  });

  it("validates payloads through $id, $anchor and relative references", () => {
    const validator = createPayloadValidator();
    const check = (payload: unknown) =>
      validator
        .validate(upload(withIdentifiers), "ids", { method: "GET", path: "/orders", status: 200, payload })
        .errors.map(({ pointer, keyword }) => `${pointer} ${keyword}`);
    expect(check({ id: "o1", lines: [{ sku: "a", qty: 2 }], total: 3 })).toEqual([]);
    expect(check({ id: "o1", lines: [{ qty: 0 }], total: -1 })).toEqual([
      "/lines/0 required",
      "/lines/0/qty minimum",
      "/total minimum",
    ]);
  });

  it("validates a property named __proto__ or constructor like any other", () => {
    // Parsed from text: in an object literal `__proto__` would set the prototype instead of naming a property.
    const schema: unknown = JSON.parse(
      '{"type": "object", "required": ["constructor"], "properties": {"__proto__": {"type": "string"}, "constructor": {"type": "integer"}}}',
    );
    const document = upload(documentOf({}, schema));
    const validator = createPayloadValidator();
    const check = (text: string) =>
      validator
        .validate(document, "proto", { method: "GET", path: "/orders", status: 200, payload: JSON.parse(text) })
        .errors.map(({ pointer, keyword }) => `${pointer} ${keyword}`);
    expect(check('{"__proto__": "x", "constructor": 1}')).toEqual([]);
    expect(check('{"__proto__": 1, "constructor": "x"}')).toEqual(["/__proto__ type", "/constructor type"]);
    expect(check('{"__proto__": "x"}')).toEqual([" required"]);
  });

  it("does not demand a writeOnly property in a response when the required list and the flag come through allOf", () => {
    const schemas = {
      Base: { type: "object", properties: { id: { type: "string" }, password: { type: "string", writeOnly: true } } },
      Rules: { required: ["id", "password"] },
    };
    for (const version of ["3.0.3", "3.1.0"]) {
      const document = upload(
        documentOf(
          schemas,
          { allOf: [{ $ref: "#/components/schemas/Base" }, { $ref: "#/components/schemas/Rules" }] },
          version,
        ),
      );
      const validator = createPayloadValidator();
      const check = (payload: unknown) =>
        validator
          .validate(document, version, { method: "GET", path: "/orders", status: 200, payload })
          .errors.map(({ pointer, keyword }) => `${pointer} ${keyword}`);
      expect(check({ id: "u1" }), version).toEqual([]);
      expect(check({}), version).toEqual([" required"]);
      expect(check({ id: "u1", password: "x" }), version).toEqual(["/password writeOnly"]);
    }
  });
});
