/** OpenAPI documents for the MCP tests: a contract with response schemas, and implementations of it. */

const problem = {
  "application/problem+json": { schema: { type: "object", properties: { title: { type: "string" } } } },
};
const order = {
  type: "object",
  required: ["id", "total", "status"],
  properties: {
    id: { type: "string" },
    total: { type: "number", minimum: 0 },
    status: { type: "string", enum: ["PENDING", "PAID"] },
    lines: {
      type: "array",
      items: {
        type: "object",
        required: ["sku"],
        properties: { sku: { type: "string" }, quantity: { type: "integer" } },
      },
    },
  },
};

export function ordersContract(title = "Orders"): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: { title, version: "1.0.0" },
    security: [{ bearer: [] }],
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    paths: {
      "/orders": {
        get: {
          operationId: "listOrders",
          responses: {
            "200": { description: "ok", content: { "application/json": { schema: { type: "array", items: order } } } },
          },
        },
      },
      "/orders/{id}": {
        get: {
          operationId: "getOrder",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": { description: "ok", content: { "application/json": { schema: order } } },
            "404": { description: "missing", content: problem },
          },
        },
        delete: {
          operationId: "cancelOrder",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          // No schema for this response: validate_response_payload answers missing-schema.
          responses: {
            "202": { description: "accepted", content: { "text/plain": {} } },
            "404": { description: "missing", content: problem },
          },
        },
      },
    },
  };
}

/** The contract as an implementation generates it (other parameter name): approved. */
export function conformingSnapshot(): Record<string, unknown> {
  const doc = structuredClone(ordersContract()) as {
    paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>>;
  };
  const byId = doc.paths["/orders/{id}"]!;
  for (const operation of Object.values(byId)) operation.parameters![0]!.name = "orderId";
  doc.paths["/orders/{orderId}"] = byId;
  delete doc.paths["/orders/{id}"];
  return doc;
}

/** An implementation without GET /orders/{id}: rejected with missing-operation. */
export function violatingSnapshot(): Record<string, unknown> {
  const doc = structuredClone(ordersContract()) as { paths: Record<string, Record<string, unknown>> };
  delete doc.paths["/orders/{id}"]!.get;
  return doc;
}

export const GOOD_ORDER = { id: "ord_1001", total: 25.5, status: "PAID", lines: [{ sku: "A-1", quantity: 2 }] };
