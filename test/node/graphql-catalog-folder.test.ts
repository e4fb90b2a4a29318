/**
 * Operations are data, proven from disk: the shipped policies/ folder plus a fixture folder holding a third
 * operation give a third tool with the right derived schemas, and it runs on the demo upstream, with no code
 * change. Also: every file under policies/ is in the Worker's bundle manifest (src/policy/files.ts).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { enabledOperations, loadGraphqlCatalog } from "../../src/graphql/operation-allowlist";
import { runGovernedOperation } from "../../src/graphql/run-operation";
import { readPolicyFolder } from "./graphql-support";

const FIXTURE = "test/node/fixtures/graphql-third-operation";

describe("a third operation from a fixture folder", () => {
  const catalog = loadGraphqlCatalog({ ...readPolicyFolder("policies"), ...readPolicyFolder(FIXTURE) });
  const recent = catalog.operations.find((o) => o.name === "RecentCustomerOrders")!;

  it("becomes a tool with its policy's name, scope and timeout", () => {
    expect(
      enabledOperations(catalog)
        .map((o) => o.tool)
        .sort(),
    ).toEqual(["orders_customer_recent", "orders_get_by_id", "orders_search"]);
    expect(recent).toMatchObject({
      tool: "orders_customer_recent",
      scopes: ["orders.read"],
      timeoutMs: 2000,
      kind: "query",
      enabled: true,
    });
    expect(recent.annotations.readOnlyHint).toBe(true);
  });

  it("derives the input schema from the variables and the policy", () => {
    expect(z.toJSONSchema(recent.inputSchema, { io: "input" })).toEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        id: {
          type: "string",
          maxLength: 1000,
          pattern: "^ord_[0-9]{1,12}$",
          description: "An order of the customer, e.g. ord_1002.",
        },
        limit: { type: "integer", minimum: 1, maximum: 10, default: 5, description: "How many orders to return." },
      },
      required: ["id"],
      additionalProperties: false,
    });
  });

  it("derives the output schema from the selection set, with the customer's name masked", () => {
    const schema = z.toJSONSchema(recent.outputSchema, { io: "output" }) as unknown as {
      properties: { orderById: { anyOf: unknown[] } };
    };
    expect(schema.properties.orderById.anyOf[1]).toEqual({ type: "null" });
    expect(schema.properties.orderById.anyOf[0]).toEqual({
      type: "object",
      properties: {
        id: { type: "string", description: "Order id, such as ord_1002." },
        customer: {
          type: "object",
          description: "The customer who placed the order.",
          properties: {
            id: { type: "string", description: "Customer id, such as cus_042." },
            name: {
              anyOf: [{ type: "string" }, { type: "string", const: "[masked]" }],
              description:
                'Customer\'s full name (personal data). Masked as "[masked]" unless the token holds orders.pii.',
            },
            orders: {
              type: "array",
              description: "The customer's orders, newest first.",
              items: {
                type: "object",
                properties: {
                  id: { type: "string", description: "Order id, such as ord_1002." },
                  status: {
                    type: "string",
                    enum: ["PENDING", "PAID", "SHIPPED", "CANCELLED", "REFUNDED"],
                    description: "Current lifecycle state.",
                  },
                  total: { type: "number", description: "Order total, in the order's currency." },
                },
                required: ["id", "status", "total"],
                additionalProperties: false,
              },
            },
          },
          required: ["id", "name", "orders"],
          additionalProperties: false,
        },
      },
      required: ["id", "customer"],
      additionalProperties: false,
    });
  });

  it("runs on the embedded demo upstream through the governed path", async () => {
    const principal = { organizationId: "acme", userId: "mia", clientId: "t", role: "member", scopes: ["orders.read"] };
    const result = await runGovernedOperation(
      catalog,
      recent,
      recent.inputSchema.parse({ id: "ord_1002" }) as Record<string, unknown>,
      { principal, env: {} },
    );
    const order = (
      result.structuredContent as { orderById: { customer: { name: string; orders: Array<{ id: string }> } } }
    ).orderById;
    expect(order.customer.name).toBe("[masked]");
    expect(order.customer.orders.map((o) => o.id)).toContain("ord_1002");
    expect(result.meta.demoData).toBe(true);
  });
});

describe("the Worker bundles every policy file", () => {
  it("lists each file under policies/ in src/policy/files.ts, under its own path", () => {
    const manifest = readFileSync("src/policy/files.ts", "utf8");
    const imports = new Map(
      [...manifest.matchAll(/import (\w+) from "\.\.\/\.\.\/policies\/([^"]+)";/g)].map((m) => [m[1]!, m[2]!]),
    );
    const entries = new Map([...manifest.matchAll(/"([^"]+)": (\w+),/g)].map((m) => [m[1]!, m[2]!]));
    for (const path of Object.keys(readPolicyFolder("policies"))) {
      const identifier = entries.get(path);
      expect(identifier, `policies/${path} is not in bundledPolicyFiles`).toBeDefined();
      expect(imports.get(identifier!), `policies/${path} is bundled from another file`).toBe(path);
    }
  });
});
