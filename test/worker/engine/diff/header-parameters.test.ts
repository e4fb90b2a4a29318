/**
 * Request headers are parameters: they are paired case-insensitively and their schemas go through the same
 * schema diff as query parameters, so every comparison a query parameter gets (types, enums, null, and the
 * keyword constraints) a header parameter gets too.
 */
import { describe, expect, it } from "vitest";
import { checkConformance } from "../../../../src/engine/engine";
import { configFor, openapi, responses } from "../harness";

const op = (parameter: Record<string, unknown>) =>
  openapi({ "/orders": { get: { parameters: [parameter], responses: responses({ "200": null }) } } });

function findings(
  location: "query" | "header",
  contractSchema: unknown,
  snapshotSchema: unknown,
  snapshotName = "X-Tenant",
) {
  const verdict = checkConformance(
    op({ name: "X-Tenant", in: location, schema: contractSchema }),
    op({ name: location === "header" ? snapshotName : "X-Tenant", in: location, schema: snapshotSchema }),
    configFor("parameter-schema"),
  );
  return verdict.violations.map(({ location: where, message }) => ({
    where: where.replace(`/${location}/`, "/IN/"),
    message: message.replace(`${location} parameter`, "IN parameter"),
  }));
}

const changes: [string, unknown, unknown][] = [
  ["an enum value removed", { type: "string", enum: ["a", "b"] }, { type: "string", enum: ["a"] }],
  ["a changed type", { type: "string" }, { type: "integer" }],
  ["a lowered maxLength", { type: "string", maxLength: 20 }, { type: "string", maxLength: 10 }],
  ["a raised minimum", { type: "integer", minimum: 1 }, { type: "integer", minimum: 5 }],
  ["a pattern added", { type: "string" }, { type: "string", pattern: "^[a-z]+$" }],
];

describe("header parameters get the comparisons query parameters get", () => {
  for (const [name, contractSchema, snapshotSchema] of changes) {
    it(`${name}: the same findings in a header as in a query parameter`, () => {
      expect(findings("header", contractSchema, snapshotSchema, "x-tenant")).toEqual(
        findings("query", contractSchema, snapshotSchema),
      );
    });
  }

  it("pairs header names case-insensitively and reports a header's enum and type at its pointer", () => {
    expect(
      findings("header", { type: "string", enum: ["a", "b"] }, { type: "string", enum: ["a"] }, "x-tenant"),
    ).toEqual([
      {
        where: expect.stringContaining("GET /orders#/parameters/IN/X-Tenant/schema"),
        message: expect.stringContaining('does not accept "b"'),
      },
    ]);
    expect(findings("header", { type: "string" }, { type: "integer" }, "X-TENANT")).toHaveLength(1);
  });
});
