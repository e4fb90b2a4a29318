/** A contract with request and response rules on both sides, and recorded exchanges for it (HAR 1.2 and NDJSON). */

const order = {
  type: "object",
  required: ["id", "total", "status"],
  properties: {
    id: { type: "string", readOnly: true },
    total: { type: "number", minimum: 0 },
    status: { type: "string", enum: ["PENDING", "PAID"] },
    note: { type: "string" },
    secret: { type: "string", writeOnly: true },
  },
};

export function exchangeContract(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: { title: "Orders", version: "1.0.0" },
    servers: [{ url: "https://api.example.com/v1" }],
    paths: {
      "/orders": {
        get: {
          operationId: "listOrders",
          parameters: [
            { name: "limit", in: "query", required: true, schema: { type: "integer", maximum: 100 } },
            {
              name: "status",
              in: "query",
              schema: { type: "array", items: { type: "string", enum: ["PENDING", "PAID"] } },
            },
          ],
          responses: {
            "200": {
              description: "ok",
              headers: { "X-Total-Count": { required: true, schema: { type: "integer" } } },
              content: {
                "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Order" } } },
              },
            },
          },
        },
        post: {
          operationId: "createOrder",
          parameters: [
            { name: "Idempotency-Key", in: "header", required: true, schema: { type: "string", minLength: 8 } },
          ],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/Order" } } },
          },
          responses: {
            "201": {
              description: "created",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Order" } } },
            },
            "4XX": {
              description: "bad",
              content: {
                "application/problem+json": {
                  schema: { type: "object", required: ["title"], properties: { title: { type: "string" } } },
                },
              },
            },
          },
        },
      },
      "/orders/{id}": {
        get: {
          operationId: "getOrder",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", pattern: "^ord_" } }],
          responses: {
            "200": {
              description: "ok",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Order" } } },
            },
            "404": { description: "missing" },
          },
        },
      },
    },
    components: { schemas: { Order: order } },
  };
}

export const GOOD_ORDER = { id: "ord_1", total: 12.5, status: "PAID" };
/** What a client sends to create an order: no id (readOnly), a secret (writeOnly). */
export const NEW_ORDER = { total: 12.5, status: "PENDING", secret: "s3cr3t" };

interface HarExchange {
  method: string;
  url: string;
  status: number;
  requestHeaders?: Record<string, string>;
  requestBody?: unknown;
  responseHeaders?: Record<string, string>;
  responseBody?: unknown;
  responseMimeType?: string;
  base64?: boolean;
}

export function har(exchanges: HarExchange[]): Record<string, unknown> {
  return {
    log: {
      version: "1.2",
      creator: { name: "test", version: "1" },
      entries: exchanges.map((exchange) => {
        const responseText =
          exchange.responseBody === undefined
            ? undefined
            : typeof exchange.responseBody === "string"
              ? exchange.responseBody
              : JSON.stringify(exchange.responseBody);
        return {
          startedDateTime: "2026-12-01T00:00:00.000Z",
          time: 1,
          request: {
            method: exchange.method,
            url: exchange.url,
            httpVersion: "HTTP/1.1",
            headers: Object.entries(exchange.requestHeaders ?? {}).map(([name, value]) => ({ name, value })),
            queryString: [],
            cookies: [],
            headersSize: -1,
            bodySize: -1,
            ...(exchange.requestBody === undefined
              ? {}
              : { postData: { mimeType: "application/json", text: JSON.stringify(exchange.requestBody) } }),
          },
          response: {
            status: exchange.status,
            statusText: "",
            httpVersion: "HTTP/1.1",
            headers: Object.entries(exchange.responseHeaders ?? {}).map(([name, value]) => ({ name, value })),
            cookies: [],
            content: {
              size: responseText?.length ?? 0,
              mimeType: exchange.responseMimeType ?? "application/json",
              ...(responseText === undefined
                ? {}
                : exchange.base64
                  ? { text: btoa(responseText), encoding: "base64" }
                  : { text: responseText }),
            },
            redirectURL: "",
            headersSize: -1,
            bodySize: -1,
          },
          cache: {},
          timings: { send: 0, wait: 1, receive: 0 },
        };
      }),
    },
  };
}

/** Exchanges that conform to exchangeContract(). */
export function conformingHar(): Record<string, unknown> {
  return har([
    {
      method: "GET",
      url: "https://api.example.com/v1/orders?limit=10&status=PAID&status=PENDING",
      status: 200,
      responseHeaders: { "X-Total-Count": "1" },
      responseBody: [GOOD_ORDER],
    },
    {
      method: "POST",
      url: "https://api.example.com/v1/orders",
      status: 201,
      requestHeaders: { "Idempotency-Key": "key-12345678", "Content-Type": "application/json" },
      requestBody: NEW_ORDER,
      responseBody: GOOD_ORDER,
    },
    {
      method: "POST",
      url: "https://api.example.com/v1/orders",
      status: 409,
      requestHeaders: { "Idempotency-Key": "key-12345678" },
      requestBody: NEW_ORDER,
      responseBody: { title: "duplicate" },
      responseMimeType: "application/problem+json",
    },
    { method: "GET", url: "/v1/orders/ord_1", status: 200, responseBody: GOOD_ORDER, base64: true },
    { method: "GET", url: "/orders/ord_2", status: 404 },
  ]);
}
