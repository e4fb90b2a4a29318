/**
 * Each request in its own context, as in production. The rest of the worker suite calls the Worker directly from the
 * test (test/worker/self.ts says why), where one request's I/O objects (a stub's promise, a stream, a cached
 * fetch) may be used by the next without the runtime objecting. Here every request goes through the pool's own
 * service binding, a request context of its own, and each surface is called twice in a row with the same client and
 * organization, so a per-isolate cache that kept an I/O object from the first request would fail the second with
 * "Cannot perform I/O on behalf of a different request". Few requests, so the pool's slowdown per request
 * (cloudflare/workers-sdk#15446) stays negligible.
 */
import { SELF as poolSelf } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { API_RESOURCE, BASE, MCP_URL, MODERN_ENVELOPE, MODERN_ERA, obtainTokens, readRpc } from "./helpers";

function bearer(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${token}`, ...extra };
}

const JSON_RPC = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

async function rpcResult(response: Response, id: number): Promise<Record<string, any>> {
  expect(response.status).toBe(200);
  const reply = (await readRpc(response)).find((message) => message.id === id);
  expect(reply?.error).toBeUndefined();
  return reply!.result;
}

describe("requests in contexts of their own (the pool's service binding)", () => {
  it("serves REST and both MCP lanes twice in a row without sharing an I/O object", async () => {
    const rest = (await obtainTokens({ user: "ana", scope: "contracts.read audit.read", resource: API_RESOURCE }))
      .tokens.access_token;
    const mcp = (await obtainTokens({ user: "ana", scope: "orders.read orders.search contracts.read" })).tokens
      .access_token;

    for (let round = 1; round <= 2; round++) {
      expect((await poolSelf.fetch(`${BASE}/health`)).status).toBe(200);
      const whoami = await poolSelf.fetch(`${BASE}/api/v1/whoami`, { headers: bearer(rest) });
      expect(whoami.status).toBe(200);
      expect(((await whoami.json()) as { organization: { id: string } }).organization.id).toBe("acme");
      const events = await poolSelf.fetch(`${BASE}/api/v1/audit/events?limit=5`, { headers: bearer(rest) });
      expect(events.status).toBe(200);
      await events.text();

      const stateless = await poolSelf.fetch(MCP_URL, {
        method: "POST",
        headers: bearer(mcp, {
          ...JSON_RPC,
          "MCP-Protocol-Version": MODERN_ERA,
          "Mcp-Method": "tools/call",
          "Mcp-Name": "orders_search",
        }),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: round,
          method: "tools/call",
          params: { name: "orders_search", arguments: { status: "PAID" }, _meta: MODERN_ENVELOPE },
        }),
      });
      expect((await rpcResult(stateless, round)).isError).toBeFalsy();
    }

    const initialized = await poolSelf.fetch(MCP_URL, {
      method: "POST",
      headers: bearer(mcp, JSON_RPC),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "isolation", version: "1" } },
      }),
    });
    const sessionId = initialized.headers.get("mcp-session-id")!;
    await rpcResult(initialized, 1);
    const session = bearer(mcp, { ...JSON_RPC, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" });
    expect(
      (
        await poolSelf.fetch(MCP_URL, {
          method: "POST",
          headers: session,
          body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        })
      ).status,
    ).toBe(202);
    for (const id of [2, 3]) {
      const called = await poolSelf.fetch(MCP_URL, {
        method: "POST",
        headers: session,
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "whoami", arguments: {} } }),
      });
      expect((await rpcResult(called, id)).isError).toBeFalsy();
    }
  });
});
