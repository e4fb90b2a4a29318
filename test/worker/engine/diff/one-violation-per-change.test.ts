/**
 * Every rule on at its default severity, one change at a time: each change to a value's constraints, format,
 * enum, nullability, required properties or parameter serialisation gives exactly one violation, from the rule
 * that owns it, and semantically equal rewrites (3.0 vs 3.1, $ref vs inline) give none.
 */
import { describe, expect, it } from "vitest";
import { loadConformanceConfig } from "../../../../src/engine/verdict/config";
import { parseOpenApiDocument } from "../../../../src/engine/load/document";
import { checkConformance } from "../../../../src/engine/engine";
import type { OpenApiDocument } from "../../../../src/engine/types";

type Json = Record<string, any>;

function base(version: string): Json {
  const exclusive = version === "3.0.3" ? { minimum: 0, exclusiveMinimum: true } : { exclusiveMinimum: 0 };
  return {
    openapi: version,
    info: { title: "orders", version: "1.0.0" },
    paths: {
      "/orders": {
        post: {
          parameters: [
            {
              name: "limit",
              in: "query",
              schema: { type: "integer", format: "int64", minimum: 1, maximum: 100, default: 20 },
            },
            { name: "ids", in: "query", allowEmptyValue: true, schema: { type: "array", items: { type: "integer" } } },
            { name: "X-Trace", in: "header", schema: { type: "string", pattern: "^[a-f0-9]+$" } },
          ],
          requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/NewOrder" } } } },
          responses: {
            "201": {
              description: "created",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Order" } } },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        NewOrder: {
          type: "object",
          required: ["sku"],
          properties: {
            sku: { type: "string", maxLength: 20 },
            channel: { type: "string", enum: ["web", "store"] },
            tags: { type: "array", items: { type: "string" } },
            price: { type: "number", ...exclusive },
          },
        },
        Order: {
          type: "object",
          required: ["id", "sku", "status", "kind"],
          properties: {
            id: { type: "string", readOnly: true },
            sku: { type: "string", maxLength: 20, pattern: "^[A-Z0-9-]+$" },
            status: { type: "string", enum: ["open", "paid"], maxLength: 8 },
            kind: version === "3.0.3" ? { type: "string", enum: ["order"] } : { type: "string", const: "order" },
            quantity: { type: "integer", format: "int32", maximum: 99 },
          },
        },
      },
    },
  };
}

function parse(document: Json): OpenApiDocument {
  const parsed = parseOpenApiDocument(JSON.stringify(document));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.document;
}

const config = loadConformanceConfig({ "conformance.json": { rules: {} }, "constitution.json": { rules: {} } });

function findings(change: (document: Json) => void, version = "3.0.3"): string[] {
  const snapshot = base(version);
  change(snapshot);
  return checkConformance(parse(base("3.0.3")), parse(snapshot), config).violations.map(
    ({ rule, location }) => `${rule} ${location}`,
  );
}

const operation = (document: Json): Json => document.paths["/orders"].post;
const order = (document: Json): Json => document.components.schemas.Order.properties;
const newOrder = (document: Json): Json => document.components.schemas.NewOrder.properties;
const BODY = "POST /orders#/requestBody/content/application~1json/schema";
const RESPONSE = "POST /orders#/responses/201/content/application~1json/schema";

describe("one violation per change, every rule on", () => {
  it("the same contract written in 3.1 (numeric exclusive bound, const, type arrays) gives none", () => {
    expect(findings(() => undefined, "3.1.0")).toEqual([]);
    expect(findings(() => undefined)).toEqual([]);
  });

  it.each<[string, (document: Json) => void, string]>([
    [
      "a raised parameter minimum",
      (d) => (operation(d).parameters[0].schema.minimum = 5),
      "parameter-constraint POST /orders#/parameters/query/limit/schema",
    ],
    [
      "a narrower parameter format",
      (d) => (operation(d).parameters[0].schema.format = "int32"),
      "schema-format POST /orders#/parameters/query/limit/schema",
    ],
    [
      "a changed parameter default",
      (d) => (operation(d).parameters[0].schema.default = 50),
      "parameter-default POST /orders#/parameters/query/limit/schema/default",
    ],
    [
      "a changed explode",
      (d) => (operation(d).parameters[1].explode = false),
      "parameter-style POST /orders#/parameters/query/ids/explode",
    ],
    [
      "allowEmptyValue removed",
      (d) => delete operation(d).parameters[1].allowEmptyValue,
      "parameter-allow-empty-value POST /orders#/parameters/query/ids/allowEmptyValue",
    ],
    [
      "a changed header pattern",
      (d) => (operation(d).parameters[2].schema.pattern = "^[a-f]+$"),
      "parameter-constraint POST /orders#/parameters/header/X-Trace/schema",
    ],
    [
      "a lowered request maxLength",
      (d) => (newOrder(d).sku.maxLength = 10),
      `request-body-constraint ${BODY}/properties/sku`,
    ],
    [
      "uniqueItems newly set in a request",
      (d) => (newOrder(d).tags.uniqueItems = true),
      `request-body-constraint ${BODY}/properties/tags`,
    ],
    [
      "a const added in a request",
      (d) => (newOrder(d).tags.items.enum = ["a"]),
      `request-body-schema ${BODY}/properties/tags/items`,
    ],
    [
      "a request enum value removed",
      (d) => (newOrder(d).channel.enum = ["web"]),
      `request-body-schema ${BODY}/properties/channel`,
    ],
    [
      "a raised exclusive request bound",
      (d) => (newOrder(d).price.minimum = 1),
      `request-body-constraint ${BODY}/properties/price`,
    ],
    [
      "a raised response maximum",
      (d) => (order(d).quantity.maximum = 100),
      `response-constraint ${RESPONSE}/properties/quantity`,
    ],
    [
      "a response format widened",
      (d) => (order(d).quantity.format = "int64"),
      `schema-format ${RESPONSE}/properties/quantity`,
    ],
    [
      "a response pattern removed",
      (d) => delete order(d).sku.pattern,
      `response-constraint ${RESPONSE}/properties/sku`,
    ],
    [
      "a response enum value added beside maxLength",
      (d) => (order(d).status.enum = ["open", "paid", "refunded"]),
      `response-enum ${RESPONSE}/properties/status`,
    ],
    [
      "a response const changed",
      (d) => (order(d).kind.enum = ["invoice"]),
      `response-enum ${RESPONSE}/properties/kind`,
    ],
    ["a response const dropped", (d) => delete order(d).kind.enum, `response-enum ${RESPONSE}/properties/kind`],
    [
      "a required response property made nullable",
      (d) => (order(d).sku.nullable = true),
      `response-nullability ${RESPONSE}/properties/sku`,
    ],
    [
      "a required response property made optional",
      (d) => (d.components.schemas.Order.required = ["id", "status", "kind"]),
      `response-property-optional ${RESPONSE}/properties/sku`,
    ],
  ])("%s", (_name, change, expected) => {
    expect(findings(change)).toEqual([expected]);
  });
});
