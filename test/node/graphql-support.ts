/**
 * Node-side support for the order-data tests: a policies/ folder read from disk into the same map the Worker
 * bundles and a real GraphQL upstream on loopback. wrangler dev and tokens: test/helpers/wrangler-dev.ts, oauth-http.ts.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join, relative, sep } from "node:path";
import { buildSchema, graphql } from "graphql";

export function readPolicyFolder(root: string): Record<string, unknown> {
  const files: Record<string, unknown> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const key = relative(root, path).split(sep).join("/");
        const text = readFileSync(path, "utf8");
        if (name.endsWith(".json")) files[key] = JSON.parse(text);
        else if (name.endsWith(".graphql")) files[key] = text;
      }
    }
  };
  walk(root);
  return files;
}

// ---------------------------------------------------------------------------------------------------------
// A real GraphQL upstream on loopback (node:http + graphql-js over policies/graphql/schema.graphql), with
// scripted misbehaviour chosen by the URL path (/slow/graphql, /500/graphql, ...) or by the order id asked
// for (ord_5000 slow, ord_5001 500, ord_5002 malformed, ord_5003 resolver error -> partial data, ord_5004 a 302
// to `redirectTo`).

export const REMOTE_ORDERS = [
  {
    id: "ord_7001",
    customerName: "Remote Rita",
    total: 42.5,
    currency: "EUR",
    status: "PAID",
    createdAt: "2025-01-02T00:00:00.000Z",
    items: [{ sku: "R-1", description: "Remote item", quantity: 1, unitPrice: 42.5 }],
  },
  {
    id: "ord_7002",
    customerName: "Remote Raul",
    total: 10,
    currency: "EUR",
    status: "PENDING",
    createdAt: "2025-01-01T00:00:00.000Z",
    items: [{ sku: "R-2", description: "Other item", quantity: 2, unitPrice: 5 }],
  },
];

export interface SeenUpstreamRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: { query?: string; operationName?: string; variables?: Record<string, unknown> };
}

export interface LoopbackUpstream {
  url(path?: string): string;
  requests: SeenUpstreamRequest[];
  /** Requests whose connection closed before the server answered (the client gave up). */
  closedEarly: SeenUpstreamRequest[];
  waitForEarlyClose(count: number, withinMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const SLOW_ANSWER_MS = 20_000;

export async function startLoopbackUpstream(options: { redirectTo?: string } = {}): Promise<LoopbackUpstream> {
  const schema = buildSchema(readFileSync(join(process.cwd(), "policies/graphql/schema.graphql"), "utf8"));
  const root = {
    orders: ({ status, limit }: { status?: string; limit?: number }) =>
      REMOTE_ORDERS.filter((o) => !status || o.status === status).slice(0, limit ?? 20),
    orderById: ({ id }: { id: string }) => {
      if (id === "ord_5003") throw new Error("inventory service down");
      return REMOTE_ORDERS.find((o) => o.id === id) ?? null;
    },
  };
  const requests: SeenUpstreamRequest[] = [];
  const closedEarly: SeenUpstreamRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      let body: SeenUpstreamRequest["body"] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        // recorded as an empty body
      }
      const seen: SeenUpstreamRequest = { path: req.url ?? "", headers: req.headers, body };
      requests.push(seen);
      const byPath = (req.url ?? "").split("/")[1];
      const id = body.variables?.id;
      const mode =
        byPath && byPath !== "graphql"
          ? byPath
          : id === "ord_5000"
            ? "slow"
            : id === "ord_5001"
              ? "500"
              : id === "ord_5002"
                ? "malformed"
                : id === "ord_5004"
                  ? "redirect"
                  : "normal";
      res.on("close", () => {
        if (!res.writableFinished) closedEarly.push(seen);
      });
      if (mode === "slow") {
        const timer = setTimeout(
          () => res.writableEnded || res.end(JSON.stringify({ data: { orderById: null } })),
          SLOW_ANSWER_MS,
        );
        timers.add(timer);
        res.on("close", () => clearTimeout(timer));
        return;
      }
      if (mode === "500") {
        res
          .writeHead(500, { "Content-Type": "text/plain" })
          .end("Internal error at /srv/orders/db.js:42 password=hunter2");
        return;
      }
      if (mode === "redirect") {
        res.writeHead(302, { Location: options.redirectTo ?? "http://127.0.0.1:9/graphql" }).end();
        return;
      }
      if (mode === "malformed") {
        res.writeHead(200, { "Content-Type": "application/json" }).end('{"data": {"orders": [');
        return;
      }
      if (mode === "huge") {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.write('{"data":{"orders":[]},"padding":"');
        // Far more than loopback's socket buffers hold (they can take a few MB at once), so the answer cannot have
        // been written whole before the client stops reading: the close the test waits for is the client's.
        const chunk = "x".repeat(64 * 1024);
        let sent = 0;
        const pump = () => {
          while (sent < 4096 && !res.destroyed) {
            sent++;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          if (!res.destroyed) res.end('"}');
        };
        pump();
        return;
      }
      const result = await graphql({
        schema,
        source: body.query ?? "",
        rootValue: root,
        variableValues: body.variables ?? {},
        operationName: body.operationName,
      });
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(result));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path = "/graphql") => `http://127.0.0.1:${port}${path}`,
    requests,
    closedEarly,
    async waitForEarlyClose(count, withinMs) {
      const deadline = Date.now() + withinMs;
      while (closedEarly.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      return closedEarly.length >= count;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A server that answers every request with a GraphQL order and counts the requests it got. */
export async function startCountingServer(): Promise<{ url: string; hits(): number; close(): Promise<void> }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    res
      .writeHead(200, { "Content-Type": "application/json" })
      .end(JSON.stringify({ data: { orderById: REMOTE_ORDERS[0] } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    hits: () => hits,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
