/**
 * The shortcut that lets identical operation pairs skip the pair rules must never hide a difference a rule
 * would report: names that look like annotations ("default", "description") are compared, a reference cycle
 * does not make a changed schema look identical, and only what no rule reads is ignored.
 */
import { describe, expect, it } from "vitest";
import { checkConformance } from "../../../../src/engine/engine";
import { indexDocument } from "../../../../src/engine/normalize/normalize-document";
import { StructuralIdentity } from "../../../../src/engine/diff/structural-identity";
import type { OpenApiDocument } from "../../../../src/engine/types";
import { configFor, openapi } from "../harness";

function identity(contract: OpenApiDocument, snapshot: OpenApiDocument): StructuralIdentity {
  const contractIndex = indexDocument(contract);
  const snapshotIndex = indexDocument(snapshot);
  return new StructuralIdentity(
    { resolver: contractIndex.resolver, version: contractIndex.version },
    { resolver: snapshotIndex.resolver, version: snapshotIndex.version },
  );
}

function operation(document: OpenApiDocument, path: string, method = "get"): unknown {
  return ((document.paths as Record<string, Record<string, unknown>>)[path] as Record<string, unknown>)[method];
}

function locations(ruleId: string, contract: OpenApiDocument, snapshot: OpenApiDocument): string[] {
  return checkConformance(contract, snapshot, configFor(ruleId)).violations.map((violation) => violation.location);
}

const json = (schema: unknown) => ({ content: { "application/json": { schema } } });

describe("structural identity of operations", () => {
  it("ignores annotations and extensions, nothing else", () => {
    const contract = openapi({
      "/a": {
        get: {
          summary: "A",
          description: "reads A",
          operationId: "getA",
          tags: ["a"],
          "x-internal": true,
          responses: {
            "200": {
              description: "ok",
              ...json({
                type: "object",
                description: "the A",
                example: { id: "1" },
                properties: { id: { type: "string", title: "Id" } },
              }),
            },
          },
        },
      },
    });
    const renamed = openapi({
      "/a": {
        get: {
          summary: "Fetch A",
          operationId: "fetchA",
          responses: {
            "200": { description: "the A", ...json({ type: "object", properties: { id: { type: "string" } } }) },
          },
        },
      },
    });
    const retyped = openapi({
      "/a": {
        get: {
          responses: {
            "200": { description: "ok", ...json({ type: "object", properties: { id: { type: "integer" } } }) },
          },
        },
      },
    });
    expect(identity(contract, renamed).operations(operation(contract, "/a"), operation(renamed, "/a"))).toBe(true);
    expect(identity(contract, retyped).operations(operation(contract, "/a"), operation(retyped, "/a"))).toBe(false);
  });

  it("compares the `default` response (a status key, not the schema annotation of the same name)", () => {
    const contract = openapi({
      "/a": {
        get: {
          responses: {
            "200": { description: "ok" },
            default: { description: "error", ...json({ type: "object", properties: { code: { type: "string" } } }) },
          },
        },
      },
    });
    const snapshot = openapi({
      "/a": {
        get: {
          responses: {
            "200": { description: "ok" },
            default: { description: "error", ...json({ type: "object", properties: { code: { type: "integer" } } }) },
          },
        },
      },
    });
    expect(identity(contract, snapshot).operations(operation(contract, "/a"), operation(snapshot, "/a"))).toBe(false);
    expect(locations("response-type", contract, snapshot)).toEqual([
      "GET /a#/responses/default/content/application~1json/schema/properties/code",
    ]);
  });

  it("compares security requirements by scheme name, whatever the name", () => {
    const securitySchemes = { default: { type: "http", scheme: "bearer" } };
    const contract = openapi(
      { "/a": { get: { security: [{ default: [] }], responses: { "200": { description: "ok" } } } } },
      { components: { securitySchemes } },
    );
    const snapshot = openapi(
      { "/a": { get: { security: [{}], responses: { "200": { description: "ok" } } } } },
      { components: { securitySchemes } },
    );
    expect(identity(contract, snapshot).operations(operation(contract, "/a"), operation(snapshot, "/a"))).toBe(false);
    expect(locations("security-requirements", contract, snapshot)).toEqual(["GET /a#/security"]);
  });

  it("follows references: equal targets under other names are identical, changed targets are not", () => {
    const contract = openapi(
      {
        "/a": { get: { responses: { "200": { description: "ok", ...json({ $ref: "#/components/schemas/Order" }) } } } },
      },
      { components: { schemas: { Order: { type: "object", properties: { id: { type: "string" } } } } } },
    );
    const renamed = openapi(
      {
        "/a": {
          get: { responses: { "200": { description: "ok", ...json({ $ref: "#/components/schemas/OrderDto" }) } } },
        },
      },
      { components: { schemas: { OrderDto: { type: "object", properties: { id: { type: "string" } } } } } },
    );
    const changed = openapi(
      {
        "/a": { get: { responses: { "200": { description: "ok", ...json({ $ref: "#/components/schemas/Order" }) } } } },
      },
      { components: { schemas: { Order: { type: "object", properties: { id: { type: "integer" } } } } } },
    );
    expect(identity(contract, renamed).operations(operation(contract, "/a"), operation(renamed, "/a"))).toBe(true);
    expect(identity(contract, changed).operations(operation(contract, "/a"), operation(changed, "/a"))).toBe(false);
  });

  it("a difference reached through a reference cycle is not remembered as identical", () => {
    // A -> B -> A: comparing A first reaches B, which refers back to A (assumed identical while A is compared).
    // A turns out different, so B is different too: GET /b must be compared and report the change inside A.
    const components = (valueType: string) => ({
      schemas: {
        A: { type: "object", properties: { b: { $ref: "#/components/schemas/B" }, value: { type: valueType } } },
        B: { type: "object", properties: { a: { $ref: "#/components/schemas/A" }, name: { type: "string" } } },
      },
    });
    const paths = {
      "/a": { get: { responses: { "200": { description: "ok", ...json({ $ref: "#/components/schemas/A" }) } } } },
      "/b": { get: { responses: { "200": { description: "ok", ...json({ $ref: "#/components/schemas/B" }) } } } },
    };
    const contract = openapi(paths, { components: components("string") });
    const snapshot = openapi(paths, { components: components("integer") });
    const compare = identity(contract, snapshot);
    expect(compare.operations(operation(contract, "/a"), operation(snapshot, "/a"))).toBe(false);
    expect(compare.operations(operation(contract, "/b"), operation(snapshot, "/b"))).toBe(false);
    expect(locations("response-type", contract, snapshot)).toEqual([
      "GET /a#/responses/200/content/application~1json/schema/properties/value",
      "GET /b#/responses/200/content/application~1json/schema/properties/a/properties/value",
    ]);
  });

  it("an identical recursive schema is identical", () => {
    const components = {
      schemas: {
        Node: {
          type: "object",
          properties: {
            children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
            id: { type: "string" },
          },
        },
      },
    };
    const paths = {
      "/tree": { get: { responses: { "200": { description: "ok", ...json({ $ref: "#/components/schemas/Node" }) } } } },
    };
    const contract = openapi(paths, { components });
    const snapshot = openapi(paths, { components: structuredClone(components) });
    expect(identity(contract, snapshot).operations(operation(contract, "/tree"), operation(snapshot, "/tree"))).toBe(
      true,
    );
  });

  it("fields written in another order compare by name", () => {
    const contract = openapi({
      "/a": {
        get: {
          responses: {
            "200": {
              description: "ok",
              ...json({
                type: "object",
                required: ["id"],
                properties: { id: { type: "string" }, total: { type: "number" } },
              }),
            },
          },
        },
      },
    });
    const reordered = openapi({
      "/a": {
        get: {
          responses: {
            "200": {
              ...json({
                properties: { total: { type: "number" }, id: { type: "string" } },
                required: ["id"],
                type: "object",
              }),
              description: "ok",
            },
          },
        },
      },
    });
    const extra = openapi({
      "/a": {
        get: {
          responses: {
            "200": {
              description: "ok",
              ...json({
                type: "object",
                required: ["id"],
                properties: { total: { type: "number" }, id: { type: "string" }, note: { type: "string" } },
              }),
            },
          },
        },
      },
    });
    expect(identity(contract, reordered).operations(operation(contract, "/a"), operation(reordered, "/a"))).toBe(true);
    expect(identity(contract, extra).operations(operation(contract, "/a"), operation(extra, "/a"))).toBe(false);
  });
});
