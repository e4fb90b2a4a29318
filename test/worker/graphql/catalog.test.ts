/**
 * The operation loader: every shipped operation file is valid; tools and their schemas are derived from
 * the operations (checked against hand-written JSON Schemas); a third operation added only as files becomes
 * a tool; bad files are refused at load with file, line and rule.
 */
import { parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { getGraphqlCatalog } from "../../../src/graphql/bundled";
import { enabledOperations, loadGraphqlCatalog } from "../../../src/graphql/operation-allowlist";
import { GraphqlPolicyError } from "../../../src/graphql/errors";
import { bundledPolicyFiles } from "../../../src/policy/files";
import { FIND_ORDERS_OPERATION, FIND_ORDERS_POLICY, OPS, policyFilesWith } from "./fixtures";

const SCHEMA = "https://json-schema.org/draft/2020-12/schema";
const STATUSES = ["PENDING", "PAID", "SHIPPED", "CANCELLED", "REFUNDED"];
const MASKED_NAME = {
  anyOf: [{ type: "string" }, { type: "string", const: "[masked]" }],
  description:
    'Name of the customer who placed the order (personal data). Masked as "[masked]" unless the token holds orders.pii.',
};
const ERRORS = {
  type: "array",
  description:
    "Present only when the upstream answered partial data: the fields it could not resolve (they are null above)",
  items: {
    type: "object",
    properties: {
      message: {
        type: "string",
        description: "The class of error (access denied, not found, ...); the upstream's own text is never shown",
      },
      path: {
        type: "array",
        description: 'Where in the result, e.g. ["orders", 3, "total"]',
        items: { type: ["string", "number"] },
      },
    },
    required: ["message"],
    additionalProperties: false,
  },
};
const input = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input" });
const output = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "output" });

function loadError(files: Record<string, unknown>): GraphqlPolicyError {
  try {
    loadGraphqlCatalog(files);
  } catch (error) {
    if (error instanceof GraphqlPolicyError) return error;
    throw error;
  }
  throw new Error("the catalog loaded, but a GraphqlPolicyError was expected");
}

describe("shipped operations", () => {
  it("loads every operation file in the bundle, each valid against the schema and within the limits", () => {
    const catalog = getGraphqlCatalog();
    const files = Object.keys(bundledPolicyFiles).filter((path) => path.startsWith(OPS) && path.endsWith(".graphql"));
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect(catalog.operations.map((o) => o.file).sort()).toEqual(files.sort());
    for (const operation of catalog.operations) {
      expect(validate(catalog.schema, parse(bundledPolicyFiles[operation.file] as string)), operation.file).toEqual([]);
      expect(operation.estimatedCost).toBeLessThanOrEqual(catalog.gateway.limits.maxCost);
    }
    expect(
      enabledOperations(catalog)
        .map((o) => o.tool)
        .sort(),
    ).toEqual(["orders_get_by_id", "orders_search"]);
  });

  it("derives orders_search: scope, annotations and input schema (enum, bounds, default, descriptions)", () => {
    const search = getGraphqlCatalog().operations.find((o) => o.tool === "orders_search")!;
    expect(search.scopes).toEqual(["orders.search"]);
    expect(search.timeoutMs).toBe(3000);
    expect(search.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(input(search.inputSchema)).toEqual({
      $schema: SCHEMA,
      type: "object",
      properties: {
        status: {
          type: "string",
          enum: STATUSES,
          description:
            "Only orders in this status, e.g. PAID or PENDING; synonyms such as paid, Paid or pago are accepted. Omit to list every status. Valid values: PENDING, PAID, SHIPPED, CANCELLED, REFUNDED.",
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: 50,
          default: 20,
          description: "How many orders to return, 1 to 50 (default 20).",
        },
      },
      additionalProperties: false,
    });
  });

  it("derives orders_search's output schema from the selection set, admitting the masked name", () => {
    const search = getGraphqlCatalog().operations.find((o) => o.tool === "orders_search")!;
    expect(output(search.outputSchema)).toEqual({
      $schema: SCHEMA,
      type: "object",
      properties: {
        orders: {
          type: "array",
          description:
            "The organization's orders, newest first, optionally only those in one status or matching a filter.",
          items: {
            type: "object",
            properties: {
              id: { type: "string", description: "Order id, such as ord_1002." },
              customerName: MASKED_NAME,
              total: { type: "number", description: "Order total, in the order's currency." },
              currency: { type: "string", description: "ISO 4217 currency code of the total." },
              status: { type: "string", enum: STATUSES, description: "Current lifecycle state." },
              createdAt: { type: "string", description: "When the order was placed (ISO 8601, UTC)." },
            },
            required: ["id", "customerName", "total", "currency", "status", "createdAt"],
            additionalProperties: false,
          },
        },
        errors: ERRORS,
      },
      required: ["orders"],
      additionalProperties: false,
    });
  });

  it("derives orders_get_by_id: id pattern from policy, nullable result, fragment fields and nested list", () => {
    const get = getGraphqlCatalog().operations.find((o) => o.tool === "orders_get_by_id")!;
    expect(get.scopes).toEqual(["orders.read"]);
    expect(input(get.inputSchema)).toEqual({
      $schema: SCHEMA,
      type: "object",
      properties: {
        id: {
          type: "string",
          maxLength: 1000,
          pattern: "^ord_[0-9]{1,12}$",
          description: "The order id: ord_ followed by digits, e.g. ord_1002.",
        },
      },
      required: ["id"],
      additionalProperties: false,
    });
    const schema = output(get.outputSchema) as unknown as {
      properties: {
        orderById: { anyOf: Array<{ type: string; properties?: Record<string, unknown>; required?: string[] }> };
      };
    };
    const [order, nothing] = schema.properties.orderById.anyOf;
    expect(nothing).toEqual({ type: "null" });
    expect(order!.required).toEqual(["id", "customerName", "total", "currency", "status", "createdAt", "items"]);
    expect(order!.properties!.customerName).toEqual(MASKED_NAME);
    expect(order!.properties!.items).toEqual({
      type: "array",
      description: "The order's lines.",
      items: {
        type: "object",
        properties: {
          sku: { type: "string", description: "Stock keeping unit of the product." },
          description: { type: "string", description: "Product description." },
          quantity: {
            type: "integer",
            minimum: -9007199254740991,
            maximum: 9007199254740991,
            description: "Units ordered.",
          },
          unitPrice: { type: "number", description: "Price of one unit, in the order's currency." },
        },
        required: ["sku", "description", "quantity", "unitPrice"],
        additionalProperties: false,
      },
    });
  });

  it("sends the upstream the operation text without descriptions", () => {
    const get = getGraphqlCatalog().operations.find((o) => o.tool === "orders_get_by_id")!;
    expect(get.upstreamQuery).not.toContain('"');
    expect(get.upstreamQuery).toContain("query GetOrderById($id: ID!)");
    expect(get.upstreamQuery).toContain("fragment OrderDetail on Order");
  });

  it("ships the status mutation disabled: validated, but no tool", () => {
    const mutation = getGraphqlCatalog().operations.find((o) => o.name === "UpdateOrderStatus")!;
    expect(mutation.kind).toBe("mutation");
    expect(mutation.enabled).toBe(false);
    expect(mutation.annotations.destructiveHint).toBe(true);
    expect(getGraphqlCatalog().subsetSdl).not.toContain("updateOrderStatus");
  });
});

describe("adding an operation is adding files", () => {
  const catalog = loadGraphqlCatalog(
    policyFilesWith({
      [`${OPS}FindOrders.graphql`]: FIND_ORDERS_OPERATION,
      [`${OPS}FindOrders.json`]: FIND_ORDERS_POLICY,
    }),
  );
  const find = catalog.operations.find((o) => o.name === "FindOrders")!;

  it("gets a third tool with the policy's name, scope and timeout", () => {
    expect(
      enabledOperations(catalog)
        .map((o) => o.tool)
        .sort(),
    ).toEqual(["orders_find", "orders_get_by_id", "orders_search"]);
    expect(find).toMatchObject({
      tool: "orders_find",
      title: "Find orders by statuses and total",
      scopes: ["orders.search"],
      timeoutMs: 1500,
      kind: "query",
    });
    expect(find.description).toBe(
      "Finds orders in any of several statuses above a minimum total, with the customer's id and e-mail.",
    );
  });

  it("derives its input schema: non-null list of enums, optional Float, default, descriptions from the file and the schema", () => {
    expect(input(find.inputSchema)).toEqual({
      $schema: SCHEMA,
      type: "object",
      properties: {
        statuses: {
          type: "array",
          maxItems: 100,
          items: { type: "string", enum: STATUSES },
          description: "Orders in any of these statuses.",
        },
        minTotal: { type: "number", description: "The order's total is at least this." },
        limit: {
          type: "integer",
          minimum: -2147483648,
          maximum: 2147483647,
          default: 10,
          description: "How many orders to return.",
        },
      },
      required: ["statuses"],
      additionalProperties: false,
    });
    expect(find.inputSchema.parse({ statuses: ["pago", "Shipped"] })).toEqual({
      statuses: ["PAID", "SHIPPED"],
      limit: 10,
    });
  });

  it("derives its output schema, masking the customer's e-mail", () => {
    expect(output(find.outputSchema)).toEqual({
      $schema: SCHEMA,
      type: "object",
      properties: {
        orders: {
          type: "array",
          description:
            "The organization's orders, newest first, optionally only those in one status or matching a filter.",
          items: {
            type: "object",
            properties: {
              id: { type: "string", description: "Order id, such as ord_1002." },
              total: { type: "number", description: "Order total, in the order's currency." },
              status: { type: "string", enum: STATUSES, description: "Current lifecycle state." },
              customer: {
                type: "object",
                description: "The customer who placed the order.",
                properties: {
                  id: { type: "string", description: "Customer id, such as cus_042." },
                  email: {
                    anyOf: [{ type: "string" }, { type: "string", const: "[masked]" }],
                    description:
                      'Customer\'s e-mail address (personal data). Masked as "[masked]" unless the token holds orders.pii.',
                  },
                },
                required: ["id", "email"],
                additionalProperties: false,
              },
            },
            required: ["id", "total", "status", "customer"],
            additionalProperties: false,
          },
        },
        errors: ERRORS,
      },
      required: ["orders"],
      additionalProperties: false,
    });
  });

  it("adds what it touches to the schema subset", () => {
    expect(catalog.subsetSdl).toContain("input OrderFilter");
    expect(catalog.subsetSdl).toContain("email: String!");
    expect(getGraphqlCatalog().subsetSdl).not.toContain("email");
  });
});

describe("refusals at load name the file, the line and the rule", () => {
  it("refuses an operation deeper than the limit, counting through fragments", () => {
    const deep = `"Too deep."
query DeepOrders {
  orders {
    ...Outer
  }
}

fragment Outer on Order {
  customer {
    orders {
      customer {
        orders {
          id
        }
      }
    }
  }
}
`;
    const error = loadError(
      policyFilesWith({
        [`${OPS}DeepOrders.graphql`]: deep,
        [`${OPS}DeepOrders.json`]: { tool: "orders_deep", title: "Deep", scopes: ["orders.search"] },
      }),
    );
    expect(error.rule).toBe("max-depth");
    expect(error.file).toBe("graphql/operations/DeepOrders.graphql");
    expect(error.line).toBe(13);
    expect(error.message).toBe(
      'policies/graphql/operations/DeepOrders.graphql:13: max-depth: selection depth 6 (at field "id") exceeds the limit of 5 (limits in policies/graphql/gateway.json)',
    );
  });

  it("refuses a mutation whose policy does not allow mutations", () => {
    const error = loadError(
      policyFilesWith({
        [`${OPS}UpdateOrderStatus.json`]: {
          tool: "orders_update_status",
          title: "Change status",
          scopes: ["orders.write"],
          enabled: true,
        },
      }),
    );
    expect(error.rule).toBe("mutation-not-allowed");
    expect(error.message).toMatch(
      /^policies\/graphql\/operations\/UpdateOrderStatus\.graphql:1: mutation-not-allowed: "UpdateOrderStatus" is a mutation; mutations are refused unless/,
    );
  });

  it("refuses too many aliases, too many root fields and too high a cost", () => {
    const policy = { tool: "orders_x", title: "X", scopes: ["orders.search"] };
    const aliases = `"Aliases."\nquery Aliased {\n  a: orders { id }\n  b: orders { id }\n  c: orderById(id: "ord_1") { id }\n  d: orderById(id: "ord_2") { i1: id i2: id }\n}\n`;
    const aliasError = loadError(
      policyFilesWith({ [`${OPS}Aliased.graphql`]: aliases, [`${OPS}Aliased.json`]: policy }),
    );
    expect([aliasError.rule, aliasError.line]).toEqual(["max-aliases", 6]);

    const roots = `"Roots."\nquery ManyRoots {\n  orders { id }\n  orderById(id: "ord_1") { id }\n  second: orders { total }\n}\n`;
    const rootError = loadError(
      policyFilesWith({ [`${OPS}ManyRoots.graphql`]: roots, [`${OPS}ManyRoots.json`]: policy }),
    );
    expect([rootError.rule, rootError.line]).toEqual(["max-root-fields", 5]);

    const costly = `"Costly."\nquery Costly {\n  orders(limit: 100) {\n    id\n    items { sku quantity }\n  }\n}\n`;
    const costError = loadError(policyFilesWith({ [`${OPS}Costly.graphql`]: costly, [`${OPS}Costly.json`]: policy }));
    expect(costError.rule).toBe("max-cost");
    // orders 1 + 100 x (id 1 + items 1) + 100 x 20 (default list size) x (sku 1 + quantity 1) = 4201
    expect(costError.message).toContain("estimated cost 4201 exceeds the limit of 1000");
  });

  it("refuses syntax errors, schema violations, misnamed operations and missing policies with their lines", () => {
    const policy = { tool: "orders_x", title: "X", scopes: ["orders.search"] };
    const syntax = loadError(
      policyFilesWith({
        [`${OPS}Broken.graphql`]: `"Broken."\nquery Broken {\n  orders {\n    id\n`,
        [`${OPS}Broken.json`]: policy,
      }),
    );
    expect([syntax.rule, syntax.line]).toEqual(["graphql-syntax", 5]);

    const unknownField = loadError(
      policyFilesWith({
        [`${OPS}Secret.graphql`]: `"Secret."\nquery Secret {\n  orders {\n    password\n  }\n}\n`,
        [`${OPS}Secret.json`]: policy,
      }),
    );
    expect([unknownField.rule, unknownField.line]).toEqual(["graphql-validation", 4]);
    expect(unknownField.message).toContain('Cannot query field "password" on type "Order"');

    const misnamed = loadError(
      policyFilesWith({
        [`${OPS}Named.graphql`]: `"Misnamed."\nquery Other {\n  orders { id }\n}\n`,
        [`${OPS}Named.json`]: policy,
      }),
    );
    expect(misnamed.rule).toBe("operation-name");

    const missing = loadError(
      policyFilesWith({ [`${OPS}NoPolicy.graphql`]: `"No policy."\nquery NoPolicy {\n  orders { id }\n}\n` }),
    );
    expect(missing.rule).toBe("policy-missing");
    expect(missing.message).toContain("policies/graphql/operations/NoPolicy.json");
  });

  it("refuses policy that names unknown scopes, variables or patterns, or a subscription", () => {
    const op = `"Search."\nquery Search2($id: ID!) {\n  orderById(id: $id) { id }\n}\n`;
    const scope = loadError(
      policyFilesWith({
        [`${OPS}Search2.graphql`]: op,
        [`${OPS}Search2.json`]: { tool: "s2", title: "S", scopes: ["orders.everything"] },
      }),
    );
    expect(scope.message).toBe(
      'policies/graphql/operations/Search2.json: unknown-scope: scopes.0: "orders.everything" is not in policies/scopes.json',
    );

    const variable = loadError(
      policyFilesWith({
        [`${OPS}Search2.graphql`]: op,
        [`${OPS}Search2.json`]: {
          tool: "s2",
          title: "S",
          scopes: ["orders.read"],
          variables: { ident: { pattern: "orderId" } },
        },
      }),
    );
    expect(variable.rule).toBe("unknown-variable-policy");

    const pattern = loadError(
      policyFilesWith({
        [`${OPS}Search2.graphql`]: op,
        [`${OPS}Search2.json`]: {
          tool: "s2",
          title: "S",
          scopes: ["orders.read"],
          variables: { id: { pattern: "sku" } },
        },
      }),
    );
    expect([pattern.rule, pattern.line]).toEqual(["unknown-pattern", 2]);

    const duplicate = loadError(
      policyFilesWith({
        [`${OPS}Search2.graphql`]: op,
        [`${OPS}Search2.json`]: { tool: "orders_search", title: "S", scopes: ["orders.read"] },
      }),
    );
    expect(duplicate.rule).toBe("duplicate-tool");

    const subscription = loadError(
      policyFilesWith({
        [`${OPS}Watch.graphql`]: `"Watch."\nsubscription Watch {\n  orders { id }\n}\n`,
        [`${OPS}Watch.json`]: { tool: "w", title: "W", scopes: ["orders.read"] },
      }),
    );
    expect(subscription.rule).toBe("subscription-not-allowed");
  });

  it("refuses a data policy naming a field the schema lacks, and status synonyms that clash", () => {
    const field = loadError(
      policyFilesWith({
        "data-policy.json": { mask: "x", sensitiveFields: { "Order.ssn": { unmaskScope: "orders.pii", reason: "r" } } },
      }),
    );
    expect(field.message).toBe(
      "policies/data-policy.json: unknown-field: sensitiveFields.Order.ssn: the schema has no field Order.ssn",
    );
    const clash = loadError(
      policyFilesWith({
        "graphql/inputs.json": { enumSynonyms: { OrderStatus: { PAID: ["done"], SHIPPED: ["done"] } }, patterns: {} },
      }),
    );
    expect(clash.rule).toBe("synonym-invalid");
  });
});
