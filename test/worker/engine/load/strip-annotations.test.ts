/**
 * stripAnnotations (src/engine/load/strip-annotations.ts), the comparison form's document: it empties the descriptions,
 * summaries and examples of the objects a verdict compares, and nothing that is a name, data or an extension; it
 * keeps a components' example that a remaining `$ref` needs, and gives up (null) when a remaining `$ref` points
 * into a dropped value, leaves the document, or schemas use `$id` or anchors. The verdict against the stripped
 * contract is the verdict against the whole one (here on a small pair; test/node/verdict-form.test.ts on GitHub's
 * and GHES' descriptions).
 */
import { describe, expect, it } from "vitest";
import { getConformanceConfig } from "../../../../src/engine/verdict/config";
import { checkConformance } from "../../../../src/engine/engine";
import { stripAnnotations } from "../../../../src/engine/load/strip-annotations";
import type { OpenApiDocument } from "../../../../src/engine/types";

function contract(
  extra: Record<string, unknown> = {},
  itemSchema: Record<string, unknown> = { type: "string", description: "its name", example: "ana" },
): OpenApiDocument {
  return {
    openapi: "3.1.0",
    info: { title: "Orders", version: "1", description: "The orders API", summary: "orders" },
    paths: {
      "/orders/{id}": {
        summary: "One order",
        get: {
          operationId: "getOrder",
          summary: "Get an order",
          description: "Reads one order",
          parameters: [
            {
              name: "id",
              in: "path",
              required: true,
              description: "its id",
              example: "o1",
              schema: { type: "string", default: "o1", description: "id" },
            },
          ],
          responses: {
            "200": {
              description: "the order",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    description: "An order",
                    required: ["description"],
                    // A property named like an annotation is a name: kept, with its own description dropped.
                    properties: {
                      description: itemSchema,
                      summary: { type: "integer", enum: [{ description: "data" }] },
                    },
                    "x-notes": { description: "extensions are kept as they are" },
                  },
                  examples: { one: { $ref: "#/components/examples/order" } },
                },
              },
            },
          },
        },
      },
    },
    components: { examples: { order: { value: { id: "o1" } }, unused: { value: { id: "o2" } } } },
    ...extra,
  } as OpenApiDocument;
}

describe("stripAnnotations", () => {
  it("empties the annotations of compared objects and keeps names, data and extensions", () => {
    expect(stripAnnotations(contract())).toEqual({
      openapi: "3.1.0",
      info: { title: "Orders", version: "1", description: "", summary: "" },
      paths: {
        "/orders/{id}": {
          summary: "",
          get: {
            operationId: "getOrder",
            summary: "",
            description: "",
            parameters: [
              {
                name: "id",
                in: "path",
                required: true,
                description: "",
                example: "",
                schema: { type: "string", default: "o1", description: "" },
              },
            ],
            responses: {
              "200": {
                description: "",
                content: {
                  "application/json": {
                    schema: {
                      type: "object",
                      description: "",
                      required: ["description"],
                      properties: {
                        description: { type: "string", description: "", example: "" },
                        summary: { type: "integer", enum: [{ description: "data" }] },
                      },
                      "x-notes": { description: "extensions are kept as they are" },
                    },
                    examples: {},
                  },
                },
              },
            },
          },
        },
      },
      components: { examples: {} },
    });
  });

  it("keeps response headers as they are (the identity walk compares them exactly)", () => {
    const withHeader = contract() as any;
    withHeader.paths["/orders/{id}"].get.responses["200"].headers = {
      "X-Rate": { description: "calls left", schema: { type: "integer", description: "n" } },
    };
    const stripped = stripAnnotations(withHeader) as any;
    expect(stripped.paths["/orders/{id}"].get.responses["200"].headers).toEqual({
      "X-Rate": { description: "calls left", schema: { type: "integer", description: "n" } },
    });
  });

  it("keeps a components' example that a remaining $ref needs, and what that example refers to", () => {
    const stripped = stripAnnotations(
      contract({ "x-hooks": { schema: { $ref: "#/components/examples/order/value" } } }),
    );
    expect(stripped?.components).toEqual({ examples: { order: { value: { id: "o1" } } } });
  });

  it("gives up when a remaining $ref points into a dropped value", () => {
    expect(
      stripAnnotations(contract({ "x-hooks": { schema: { $ref: "#/paths/~1orders~1%7Bid%7D/get/description" } } })),
    ).toBeNull();
    expect(stripAnnotations(contract({ "x-hooks": { schema: { $ref: "#/info/summary" } } }))).toBeNull();
  });

  it("gives up when a $ref leaves the document or schemas use $id or anchors", () => {
    expect(stripAnnotations(contract({}, { $ref: "common.json#/Name" }))).toBeNull();
    expect(stripAnnotations(contract({}, { $id: "https://example.com/name", type: "string" }))).toBeNull();
    expect(stripAnnotations(contract({}, { $anchor: "name", type: "string" }))).toBeNull();
  });

  it("gives the same verdict as the whole contract", () => {
    const snapshot = structuredClone(contract()) as any;
    snapshot.paths["/orders/{id}"].get.responses["200"].content["application/json"].schema.properties.summary.type =
      "string";
    snapshot.paths["/orders/{id}"].get.parameters[0].schema.default = "o2";
    const config = getConformanceConfig();
    const whole = checkConformance(contract(), snapshot, config);
    expect(whole.totalViolations).toBeGreaterThan(0);
    expect(JSON.stringify(checkConformance(stripAnnotations(contract())!, snapshot, config))).toBe(
      JSON.stringify(whole),
    );
  });
});
