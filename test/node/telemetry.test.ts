/**
 * OpenTelemetry end to end: `wrangler dev` of this Worker exports to a real OTLP/HTTP receiver on loopback
 * (node:http), configured only by OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_HEADERS. A real MCP client's
 * tool call, an order tool whose GraphQL upstream (a real loopback server) fails, and a REST snapshot upload each
 * arrive as a trace with the right parent-child links (across the Worker, the session object and the rate-limit
 * coordinator), the upstream receives the W3C traceparent of its span, the metrics arrive, and no attribute holds a
 * token, a user, upstream text or document content.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modernRequest } from "../helpers/modern-request";
import { obtainToken } from "../helpers/oauth-http";
import { startWranglerDev, type WranglerDev } from "../helpers/wrangler-dev";
import { startLoopbackUpstream, type LoopbackUpstream } from "./graphql-support";

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

interface FlatSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
}

const OTLP_KEY = "otlp-key-telemetry-test-771";
const UPSTREAM_SECRET = "telemetry-upstream-secret-903";
const DOCUMENT_MARKER = "Telemetry marker title 5521";

async function startReceiver() {
  const received: Received[] = [];
  /** While set, every export is answered with a 307 to this URL (a collector that moved, or one that was taken over). */
  const redirect: { to: string | undefined; answered: number } = { to: undefined, answered: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (redirect.to) {
        redirect.answered++;
        res.writeHead(307, { Location: `${redirect.to}${req.url ?? ""}` }).end();
        return;
      }
      try {
        received.push({
          path: req.url ?? "",
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
        });
        res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    redirect,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

function attributesOf(list: Array<{ key: string; value: Record<string, unknown> }> = []): Record<string, unknown> {
  // OTLP JSON carries 64-bit integers as strings.
  return Object.fromEntries(
    list.map(({ key, value }) => [key, "intValue" in value ? Number(value.intValue) : Object.values(value)[0]]),
  );
}

function spansOf(received: Received[]): FlatSpan[] {
  return received
    .filter((item) => item.path === "/v1/traces")
    .flatMap((item) => item.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans)))
    .map((span: any) => ({ ...span, attributes: attributesOf(span.attributes) }));
}

type Point = Record<string, unknown> & { attributes: Record<string, unknown> };

function metricsOf(received: Received[]): Array<{ name: string; points: Point[] }> {
  return received
    .filter((item) => item.path === "/v1/metrics")
    .flatMap((item) => item.body.resourceMetrics.flatMap((rm: any) => rm.scopeMetrics.flatMap((sm: any) => sm.metrics)))
    .map((metric: any) => ({
      name: metric.name,
      points: (metric.sum ?? metric.histogram).dataPoints.map((point: any) => ({
        ...point,
        attributes: attributesOf(point.attributes),
      })),
    }));
}

/** The spans of the trace whose root has `correlationId`, once `expected` spans of it have arrived. */
async function traceOf(
  received: Received[],
  correlationId: string,
  expected: (spans: FlatSpan[]) => boolean,
): Promise<FlatSpan[]> {
  let trace: FlatSpan[] = [];
  for (let attempt = 0; attempt < 100; attempt++) {
    const spans = spansOf(received);
    const root = spans.find(
      (span) => span.attributes["arbiter.correlation_id"] === correlationId && !span.parentSpanId,
    );
    trace = root ? spans.filter((span) => span.traceId === root.traceId) : [];
    if (root && expected(trace)) return trace;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`trace of ${correlationId} incomplete: ${trace.map((span) => span.name).join(", ")}`);
}

function only(spans: FlatSpan[], name: string, parent?: FlatSpan): FlatSpan {
  const found = spans.filter((span) => span.name === name && (!parent || span.parentSpanId === parent.spanId));
  expect(
    found,
    `one span "${name}"${parent ? ` under "${parent.name}"` : ""} in ${spans.map((s) => s.name).join(", ")}`,
  ).toHaveLength(1);
  return found[0]!;
}

async function connect(base: string, token: string): Promise<Client> {
  const client = new Client({ name: "telemetry-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe("OpenTelemetry export over OTLP/HTTP (wrangler dev + loopback receiver)", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let upstream: LoopbackUpstream;
  let worker: WranglerDev;
  const secrets: string[] = [
    OTLP_KEY,
    UPSTREAM_SECRET,
    DOCUMENT_MARKER,
    "hunter2",
    "Internal error",
    "ana@acme.example",
    "Gus Globex",
  ];

  beforeAll(async () => {
    receiver = await startReceiver();
    upstream = await startLoopbackUpstream();
    worker = await startWranglerDev({
      vars: {
        ARBITER_DEV_SIGN_IN: "true",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_HEADERS: `x-otlp-key=${OTLP_KEY}`,
        GRAPHQL_UPSTREAM_URL_GLOBEX: upstream.url(),
        GRAPHQL_UPSTREAM_TOKEN_GLOBEX: UPSTREAM_SECRET,
      },
    });
  });
  afterAll(async () => {
    if (process.env.TELEMETRY_TEST_LOGS)
      (await import("node:fs")).writeFileSync(process.env.TELEMETRY_TEST_LOGS, worker?.logs() ?? "");
    await worker?.stop();
    await upstream?.close();
    await receiver?.close();
  });

  it("exports a session call's trace: operation, rate-limit decision in the coordinator, audit record", async () => {
    const token = await obtainToken(worker.url, { user: "ana", scope: "orders.read", resource: `${worker.url}/mcp` });
    secrets.push(token);
    const client = await connect(worker.url, token);
    try {
      const result = await client.callTool({ name: "whoami", arguments: {} });
      expect(result.isError).toBeFalsy();
      const correlationId = (result._meta as { correlationId: string }).correlationId;
      const trace = await traceOf(
        receiver.received,
        correlationId,
        (spans) =>
          spans.filter((span) => span.name === "RateLimitCoordinator.lease").length === 2 &&
          spans.some((span) => span.name === "audit.record"),
      );
      const root = only(trace, "tool whoami");
      expect(root.kind).toBe(2);
      expect(root.attributes).toMatchObject({
        "arbiter.organization": "acme",
        "arbiter.operation": "whoami",
        "arbiter.operation.kind": "tool",
        "arbiter.outcome": "ok",
        "arbiter.ratelimit.decision": "allowed",
        "arbiter.correlation_id": correlationId,
      });
      const decide = only(trace, "ratelimit.decide", root);
      const leaseCall = only(trace, "RateLimitCoordinator.lease", decide);
      expect(leaseCall).toMatchObject({
        kind: 3,
        attributes: { "rpc.system": "cloudflare.durable_object", "rpc.service": "RateLimitCoordinator" },
      });
      // The coordinator's own span (another object) continues the trace from the traceparent the call carried.
      const leaseServed = only(trace, "RateLimitCoordinator.lease", leaseCall);
      expect(leaseServed.kind).toBe(2);
      // No KV read under it: the session's start (initialize) had the client's counters listed already.
      expect(trace.filter((span) => span.name.startsWith("kv."))).toEqual([]);
      only(trace, "audit.record", root);
    } finally {
      await client.close();
    }
    expect(receiver.received.every((item) => item.headers["x-otlp-key"] === OTLP_KEY)).toBe(true);
  });

  it("exports a 2026-07-28 call's trace down to the coordinator's KV read (a new client's first call)", async () => {
    const token = await obtainToken(worker.url, { user: "ana", scope: "orders.read", resource: `${worker.url}/mcp` });
    secrets.push(token);
    const response = await modernRequest(worker.url, token, "tools/call", { name: "whoami", arguments: {} });
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: { isError?: boolean; _meta: { correlationId: string } } };
    expect(result.isError).toBeFalsy();
    const trace = await traceOf(receiver.received, result._meta.correlationId, (spans) =>
      spans.some((span) => span.name === "kv.list"),
    );
    const root = only(trace, "tool whoami");
    const leaseCall = only(trace, "RateLimitCoordinator.lease", only(trace, "ratelimit.decide", root));
    const leaseServed = only(trace, "RateLimitCoordinator.lease", leaseCall);
    expect(only(trace, "kv.list", leaseServed).attributes).toMatchObject({ "db.system": "cloudflare.kv" });
    only(trace, "audit.record", root);
  });

  it("exports an upstream failure: the GraphQL call as a failed child span whose traceparent the upstream received", async () => {
    const token = await obtainToken(worker.url, { user: "gus", scope: "orders.read", resource: `${worker.url}/mcp` });
    secrets.push(token);
    const client = await connect(worker.url, token);
    try {
      const result = await client.callTool({ name: "orders_get_by_id", arguments: { id: "ord_5001" } });
      expect(result.isError).toBe(true);
      const correlationId = (result._meta as { correlationId: string }).correlationId;
      const trace = await traceOf(
        receiver.received,
        correlationId,
        (spans) => spans.some((span) => span.name === "graphql.upstream") && spans.some((span) => !span.parentSpanId),
      );
      const root = only(trace, "tool orders_get_by_id");
      expect(root.attributes).toMatchObject({ "arbiter.organization": "globex", "arbiter.outcome": "upstream-error" });
      expect(root.status.code).toBe(2);
      const call = only(trace, "graphql.upstream", root);
      expect(call).toMatchObject({
        kind: 3,
        status: { code: 2 },
        attributes: { "graphql.operation.name": "GetOrderById", "http.response.status_code": 500 },
      });
      const seen = upstream.requests.find((request) => request.body.variables?.id === "ord_5001");
      expect(seen?.headers.traceparent).toBe(`00-${call.traceId}-${call.spanId}-01`);
    } finally {
      await client.close();
    }
  });

  it("exports /chat's order tool call as the tool's own span under the route's, as an MCP tools/call is traced", async () => {
    const token = await obtainToken(worker.url, { user: "ana", scope: "orders.search", resource: `${worker.url}/api` });
    secrets.push(token);
    const answer = await fetch(`${worker.url}/chat`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ text: "paid orders" }),
    });
    expect(answer.status).toBe(200);
    const correlationId = answer.headers.get("x-correlation-id")!;
    const trace = await traceOf(receiver.received, correlationId, (spans) =>
      spans.some((span) => span.name === "tool orders_search"),
    );
    const root = trace.find((span) => !span.parentSpanId)!;
    expect(root.name).toMatch(/^route POST /);
    expect(only(trace, "tool orders_search", root).attributes).toMatchObject({
      "arbiter.operation.kind": "tool",
      "arbiter.outcome": "ok",
      "arbiter.correlation_id": correlationId,
    });
  });

  it("exports an upload: the REST route with the engine's phases and the store's calls, then the metrics", async () => {
    const token = await obtainToken(worker.url, {
      user: "ana",
      scope: "contracts.read contracts.write snapshots.write",
      resource: `${worker.url}/api`,
    });
    secrets.push(token);
    const document = {
      openapi: "3.1.0",
      info: { title: DOCUMENT_MARKER, version: "1.0.0" },
      paths: {
        "/orders": {
          get: {
            operationId: "listOrders",
            responses: {
              "200": {
                description: "ok",
                content: { "application/json": { schema: { type: "array", items: { type: "string" } } } },
              },
            },
          },
        },
      },
    };
    const send = (path: string, body: unknown) =>
      fetch(`${worker.url}/api/v1${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await send("/projects/telemetry/contracts", document)).status).toBe(201);
    const upload = await send("/projects/telemetry/snapshots?commit=abc123", document);
    expect(upload.status).toBe(201);
    const correlationId = upload.headers.get("x-correlation-id")!;
    const trace = await traceOf(receiver.received, correlationId, (spans) =>
      spans.some((span) => span.name === "engine.verdict"),
    );
    const root = only(trace, "route POST /api/v1/projects/:project/snapshots");
    expect(root.attributes).toMatchObject({
      "arbiter.organization": "acme",
      "arbiter.operation.kind": "route",
      "arbiter.outcome": "ok",
      "arbiter.upload.bytes": JSON.stringify(document).length,
    });
    expect(only(trace, "engine.verdict", root).attributes).toMatchObject({ "arbiter.verdict.outcome": "approved" });
    expect(
      trace.filter((span) => span.name === "engine.parse").every((span) => span.parentSpanId === root.spanId),
    ).toBe(true);
    expect(trace.some((span) => span.name === "engine.checks")).toBe(true);
    expect(trace.filter((span) => span.name.startsWith("ContractStore.")).length).toBeGreaterThan(1);

    for (let attempt = 0; attempt < 50; attempt++) {
      const names = new Set(metricsOf(receiver.received).map((metric) => metric.name));
      if (
        ["arbiter.operations", "arbiter.operation.duration", "arbiter.verdicts", "arbiter.upload.size"].every((name) =>
          names.has(name),
        )
      )
        break;
      await new Promise((done) => setTimeout(done, 100));
    }
    const metrics = metricsOf(receiver.received);
    const points = (name: string) =>
      metrics.filter((metric) => metric.name === name).flatMap((metric) => metric.points);
    expect(
      points("arbiter.operations").some(
        (point) => point.attributes["arbiter.operation"] === "whoami" && point.attributes["arbiter.outcome"] === "ok",
      ),
    ).toBe(true);
    expect(
      points("arbiter.operations").some(
        (point) =>
          point.attributes["arbiter.operation"] === "orders_get_by_id" &&
          point.attributes["arbiter.outcome"] === "upstream-error",
      ),
    ).toBe(true);
    expect(
      points("arbiter.operation.duration").some(
        (point) => Number(point.count) >= 1 && Array.isArray(point.bucketCounts),
      ),
    ).toBe(true);
    expect(points("arbiter.verdicts").some((point) => point.attributes["arbiter.verdict.outcome"] === "approved")).toBe(
      true,
    );
    expect(points("arbiter.upload.size").some((point) => Number(point.sum) >= JSON.stringify(document).length)).toBe(
      true,
    );
  });

  it("exports a refusal by reason, and never a token, a user, upstream text or document content", async () => {
    const token = await obtainToken(worker.url, {
      user: "ana",
      scope: "orders.read orders.search",
      resource: `${worker.url}/mcp`,
    });
    secrets.push(token);
    const client = await connect(worker.url, token);
    try {
      const result = await client.callTool({ name: "orders_search", arguments: { status: "not-a-status", limit: 5 } });
      expect(result.isError).toBe(true);
    } finally {
      await client.close();
    }
    let refusals: Point[] = [];
    for (let attempt = 0; attempt < 50 && refusals.length === 0; attempt++) {
      refusals = metricsOf(receiver.received)
        .filter((metric) => metric.name === "arbiter.refusals")
        .flatMap((metric) => metric.points)
        .filter((point) => point.attributes["arbiter.refusal.reason"] === "input");
      if (refusals.length === 0) await new Promise((done) => setTimeout(done, 100));
    }
    expect(refusals.length).toBeGreaterThan(0);

    // An unknown route's path is the caller's own text: an e-mail, a token-shaped segment, the caller's own token.
    const restToken = await obtainToken(worker.url, {
      user: "ana",
      scope: "contracts.read",
      resource: `${worker.url}/api`,
    });
    secrets.push(restToken, "someone@acme.example", "sk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0");
    const unknown = await fetch(
      `${worker.url}/api/v1/someone@acme.example/sk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0/${encodeURIComponent(restToken)}`,
      { headers: { Authorization: `Bearer ${restToken}` } },
    );
    expect(unknown.status).toBe(404);
    const unknownId = unknown.headers.get("x-correlation-id")!;
    const unknownTrace = await traceOf(receiver.received, unknownId, (spans) =>
      spans.some((span) => !span.parentSpanId),
    );
    expect(unknownTrace.find((span) => !span.parentSpanId)).toMatchObject({
      name: "route GET (no such route)",
      attributes: { "arbiter.operation": "GET (no such route)", "arbiter.outcome": "invalid-input" },
    });

    const exported = JSON.stringify(receiver.received.map((item) => item.body));
    for (const secret of secrets)
      expect(exported.includes(secret), `export holds ${secret.slice(0, 12)}...`).toBe(false);
    const keys = new Set(spansOf(receiver.received).flatMap((span) => Object.keys(span.attributes)));
    for (const key of keys) expect(key).toMatch(/^(arbiter\.|rpc\.|db\.|http\.|graphql\.|error\.type$)/);
    expect(
      [...keys].some(
        (key) => /user|token|email|name$/.test(key) && key !== "graphql.operation.name" && key !== "db.operation.name",
      ),
    ).toBe(false);
  });

  it("never follows a redirect from the collector: the export's credential header stays with the configured endpoint", async () => {
    const elsewhere = await startReceiver();
    try {
      receiver.redirect.to = elsewhere.url;
      const token = await obtainToken(worker.url, { user: "ana", scope: "orders.read", resource: `${worker.url}/mcp` });
      const client = await connect(worker.url, token);
      try {
        expect((await client.callTool({ name: "whoami", arguments: {} })).isError).toBeFalsy();
      } finally {
        await client.close();
      }
      for (let attempt = 0; attempt < 50 && receiver.redirect.answered === 0; attempt++)
        await new Promise((done) => setTimeout(done, 100));
      expect(receiver.redirect.answered).toBeGreaterThan(0);
      // Time for a followed redirect to land, had it been followed.
      await new Promise((done) => setTimeout(done, 500));
      expect(elsewhere.received).toEqual([]);
    } finally {
      receiver.redirect.to = undefined;
      await elsewhere.close();
    }
  });
});
