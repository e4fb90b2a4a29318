/** Small OpenAPI documents for the CI API tests: a contract, conforming and violating implementations. */

const problem = {
  "application/problem+json": { schema: { type: "object", properties: { title: { type: "string" } } } },
};
const order = {
  type: "object",
  required: ["id", "total"],
  properties: { id: { type: "string" }, total: { type: "number" } },
};

export function ordersContract(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: { title: "Orders", version: "1.0.0" },
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
        post: {
          operationId: "createOrder",
          requestBody: { required: true, content: { "application/json": { schema: order } } },
          responses: {
            "201": { description: "created", content: { "application/json": { schema: order } } },
            "400": { description: "bad", content: problem },
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
      },
    },
    ...extra,
  };
}

/** The contract as an implementation would generate it: same API, other parameter name. */
export function conformingSnapshot(): Record<string, unknown> {
  const doc = structuredClone(ordersContract()) as {
    paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>>;
  };
  const byId = doc.paths["/orders/{id}"]!;
  byId.get!.parameters![0]!.name = "orderId";
  doc.paths["/orders/{orderId}"] = byId;
  delete doc.paths["/orders/{id}"];
  return doc;
}

/** An implementation that lacks GET /orders/{id}: rejected with missing-operation. */
export function violatingSnapshot(): Record<string, unknown> {
  const doc = structuredClone(ordersContract()) as { paths: Record<string, unknown> };
  delete doc.paths["/orders/{id}"];
  return doc;
}

/**
 * An implementation that breaks two operations: GET /orders/{id} answers `total` as a string, and POST /orders
 * requires `newRequired`, a property the contract does not define.
 */
export function breakingSnapshot(newRequired = "channel"): Record<string, unknown> {
  const doc = structuredClone(ordersContract()) as {
    paths: Record<string, Record<string, any>>;
  };
  doc.paths["/orders/{id}"]!.get.responses["200"].content["application/json"].schema = {
    type: "object",
    required: ["id", "total"],
    properties: { id: { type: "string" }, total: { type: "string" } },
  };
  const create = doc.paths["/orders"]!.post.requestBody.content["application/json"].schema;
  create.required = [...create.required, newRequired];
  create.properties = { ...create.properties, [newRequired]: { type: "string" } };
  return doc;
}

export const ORDERS_CONTRACT_YAML = `openapi: 3.0.3
info:
  title: Orders
  version: 2.0.0
security:
  - bearer: []
components:
  securitySchemes:
    bearer:
      type: http
      scheme: bearer
paths:
  /orders:
    get:
      operationId: listOrders
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: array
                items:
                  type: object
  /orders/{id}:
    get:
      operationId: getOrder
      parameters:
        - name: id
          in: path
          required: true
          schema:
            type: string
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
`;

export const text = (document: unknown): string => JSON.stringify(document, null, 2);
