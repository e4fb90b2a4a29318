/**
 * End to end, the real thing: `wrangler dev` of this Worker, a real @modelcontextprotocol/sdk Client over
 * Streamable HTTP with a bearer token obtained through the OAuth flow, and a real slow GraphQL server on
 * loopback configured as globex's upstream with --var (no code change). Acme stays on the embedded demo.
 * This file holds the ONE test of the 3 s default timeout.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainToken } from "../helpers/oauth-http";
import { startWranglerDev, type WranglerDev } from "../helpers/wrangler-dev";
import { startCountingServer, startLoopbackUpstream, type LoopbackUpstream } from "./graphql-support";

const UPSTREAM_SECRET = "e2e-upstream-secret-789";

async function connect(base: string, token: string): Promise<Client> {
  const client = new Client({ name: "arbiter-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

type Order = { id: string; customerName: string; status: string };

describe("order tools end to end (wrangler dev + MCP SDK client + loopback upstream)", () => {
  let upstream: LoopbackUpstream;
  let worker: WranglerDev;
  let redirectTarget: Awaited<ReturnType<typeof startCountingServer>>;
  beforeAll(async () => {
    redirectTarget = await startCountingServer();
    upstream = await startLoopbackUpstream({ redirectTo: redirectTarget.url });
    // AUDIT_LOG_LINES=all: every audit record is also a log line, which these tests read (and so check that setting);
    // the session outbox drains 1 s after a call instead of 5, so the line comes sooner.
    worker = await startWranglerDev({
      vars: {
        ARBITER_DEV_SIGN_IN: "true",
        AUDIT_LOG_LINES: "all",
        AUDIT_DRAIN_DELAY_SECONDS: "1",
        GRAPHQL_UPSTREAM_URL_GLOBEX: upstream.url(),
        GRAPHQL_UPSTREAM_TOKEN_GLOBEX: UPSTREAM_SECRET,
      },
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await upstream?.close();
    await redirectTarget?.close();
  });

  it("a real MCP client lists and calls both tools on acme's demo data", async () => {
    const token = await obtainToken(worker.url, {
      user: "ana",
      scope: "orders.read orders.search",
      resource: `${worker.url}/mcp`,
    });
    const client = await connect(worker.url, token);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(["orders_search", "orders_get_by_id"]));
      expect(names).not.toContain("orders_update_status");

      // The SDK client validates structuredContent against each tool's outputSchema.
      const search = await client.callTool({ name: "orders_search", arguments: { status: "pago", limit: 10 } });
      expect(search.isError).toBeFalsy();
      const orders = (search.structuredContent as { orders: Order[] }).orders;
      expect(orders.length).toBeGreaterThan(1);
      expect(orders.every((o) => o.status === "PAID" && o.customerName === "[masked]")).toBe(true);
      expect(search._meta).toMatchObject({ demoData: true });

      const one = await client.callTool({ name: "orders_get_by_id", arguments: { id: "ord_1002" } });
      expect(one.structuredContent).toMatchObject({ orderById: { id: "ord_1002", total: 89.9, status: "PENDING" } });
    } finally {
      await client.close();
    }
  });

  it("globex's configured upstream answers instead, with the credential from the Worker secret and never the client's token", async () => {
    const token = await obtainToken(worker.url, {
      user: "gus",
      scope: "orders.read orders.search",
      resource: `${worker.url}/mcp`,
    });
    const client = await connect(worker.url, token);
    try {
      const before = upstream.requests.length;
      const search = await client.callTool({ name: "orders_search", arguments: {} });
      expect(search.isError).toBeFalsy();
      expect((search.structuredContent as { orders: Order[] }).orders.map((o) => o.id)).toEqual([
        "ord_7001",
        "ord_7002",
      ]);
      expect(search._meta).toMatchObject({ demoData: false, dataSource: "organization-upstream" });
      const seen = upstream.requests[before]!;
      expect(seen.headers["x-api-key"]).toBe(UPSTREAM_SECRET);
      expect(seen.headers.authorization).toBeUndefined();
      expect(JSON.stringify(seen.headers)).not.toContain(token);
      expect(seen.body.operationName).toBe("SearchOrders");
      expect(JSON.stringify(search)).not.toContain(UPSTREAM_SECRET);

      const failed = await client.callTool({ name: "orders_get_by_id", arguments: { id: "ord_5001" } });
      expect(failed.isError).toBe(true);
      expect((failed.content as Array<{ text: string }>)[0]!.text).toMatch(/^The order API failed \(HTTP 500\)/);
      expect(JSON.stringify(failed)).not.toMatch(/hunter2|db\.js|127\.0\.0\.1/);
    } finally {
      await client.close();
    }
  });

  it("does not follow a redirect from the upstream: upstream-error, and the redirect's target is never contacted", async () => {
    const token = await obtainToken(worker.url, { user: "gus", scope: "orders.read", resource: `${worker.url}/mcp` });
    const client = await connect(worker.url, token);
    try {
      const result = await client.callTool({ name: "orders_get_by_id", arguments: { id: "ord_5004" } });
      expect(result.isError).toBe(true);
      expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(
        /^The order API answered with a redirect \(HTTP 302\), which Arbiter does not follow\./,
      );
      expect(JSON.stringify(result)).not.toContain(redirectTarget.url);
      expect(upstream.requests.at(-1)!.body.variables).toEqual({ id: "ord_5004" });
      expect(redirectTarget.hits()).toBe(0);
    } finally {
      await client.close();
    }
  });

  it("times out a slow upstream after the 3 s default: the upstream connection is closed, the tool answers isError", async () => {
    const token = await obtainToken(worker.url, { user: "gus", scope: "orders.read", resource: `${worker.url}/mcp` });
    const client = await connect(worker.url, token);
    try {
      const closedBefore = upstream.closedEarly.length;
      const started = Date.now();
      const result = await client.callTool({ name: "orders_get_by_id", arguments: { id: "ord_5000" } }, undefined, {
        timeout: 30_000,
      });
      const waited = Date.now() - started;
      expect(result.isError).toBe(true);
      expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(
        /^upstream timed out after 3 s \(correlation id /,
      );
      // The slow server answers only after 20 s; the tool answered long before, and the server saw the close.
      expect(waited).toBeLessThan(15_000);
      expect(await upstream.waitForEarlyClose(closedBefore + 1, 5_000)).toBe(true);
      // The audit line is printed when the session's outbox is drained, about a second after the answer.
      await expect
        .poll(() => worker.logs(), { timeout: 10_000 })
        .toMatch(/"event":"audit".*"target":"orders_get_by_id".*"outcome":"timeout".*"stored":true/);
    } finally {
      await client.close();
    }
  });
});
