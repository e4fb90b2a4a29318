// The benchmark's ungoverned baseline tool exists only with ARBITER_BENCH_BARE=true and a loopback PUBLIC_URL.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuditRecord } from "../../../src/audit/record";
import { auditTrailIn } from "../../../src/audit/trail";
import {
  BENCH_BARE_TOOL,
  BENCH_GOVERNED_TOOL,
  benchBareEnabled,
  toolsServedBesideCatalog,
} from "../../../src/mcp/bench-bare";
import { unknownToolCalls } from "../../../src/mcp/front/unknown-tools";
import { LeasedRateLimiter } from "../../../src/ratelimit/leases";
import type { Env } from "../../../src/env";
import { getCatalog } from "../../../src/mcp/deployment-catalog";
import { createArbiterServer } from "../../../src/mcp/session/server";
import { serveStateless } from "../../../src/mcp/stateless/handler";
import { CoordinatedRateLimiter } from "../../../src/ratelimit/limiter";
import { MCP_URL } from "../helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const ENABLED = { ARBITER_BENCH_BARE: "true", PUBLIC_URL: "http://localhost:8787" };

/** One 2026-07-28 tools/call through the stateless lane's handler, as the /mcp front hands it over. */
async function statelessCall(workerEnv: Env, name: string) {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name,
      arguments: {},
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  };
  const request = new Request(MCP_URL, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": name,
    },
    body: JSON.stringify(body),
  });
  const response = await serveStateless(
    request,
    body,
    workerEnv,
    { organizationId: "acme", userId: "ana", clientId: "c-stateless", role: "admin", scopes: [] },
    crypto.randomUUID(),
  );
  return (await response.json()) as {
    result?: { structuredContent?: unknown; isError?: boolean; content?: Array<{ text: string }> };
    error?: { message: string };
  };
}

async function connect(workerEnv: Env) {
  const records: AuditRecord[] = [];
  const server = createArbiterServer(getCatalog(), {
    env: workerEnv,
    session: { get: async () => undefined, put: async () => undefined },
    audit: { record: async (r) => void records.push(r) },
    rateLimiter: { check: async () => ({ allowed: true }) },
    principalOf: () => ({ organizationId: "acme", userId: "ana", clientId: "c", role: "admin", scopes: [] }),
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "bench-bare-test", version: "1.0.0" });
  await client.connect(clientTransport);
  return { client, records };
}

describe("bench_bare", () => {
  it("is on only with ARBITER_BENCH_BARE=true and a loopback PUBLIC_URL", () => {
    expect(benchBareEnabled({ ARBITER_BENCH_BARE: "true", PUBLIC_URL: "http://localhost:8787" })).toBe(true);
    expect(benchBareEnabled({ ARBITER_BENCH_BARE: "true", PUBLIC_URL: "http://127.0.0.1:9000" })).toBe(true);
    expect(benchBareEnabled({ ARBITER_BENCH_BARE: "true", PUBLIC_URL: "https://arbiter.example.com" })).toBe(false);
    expect(benchBareEnabled({ ARBITER_BENCH_BARE: "true", PUBLIC_URL: "http://localhost.example.com" })).toBe(false);
    expect(benchBareEnabled({ ARBITER_BENCH_BARE: "true", PUBLIC_URL: "not a url" })).toBe(false);
    expect(benchBareEnabled({ ARBITER_BENCH_BARE: "1", PUBLIC_URL: "http://localhost:8787" })).toBe(false);
    expect(benchBareEnabled({ PUBLIC_URL: "http://localhost:8787" })).toBe(false);
  });

  it("is an unknown tool in the Worker's own configuration", async () => {
    const { client } = await connect(env);
    await expect(client.callTool({ name: BENCH_BARE_TOOL, arguments: {} })).rejects.toThrow(
      /Unknown tool "bench_bare"/,
    );
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain(BENCH_BARE_TOOL);
  });

  it("answers without the pipeline when enabled: no audit record, no limiter", async () => {
    const { client, records } = await connect({ ...env, ...ENABLED });
    const result = await client.callTool({ name: BENCH_BARE_TOOL, arguments: {} });
    expect(result.structuredContent).toEqual({ ok: true, tool: BENCH_BARE_TOOL });
    expect(records).toHaveLength(0);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain(BENCH_BARE_TOOL);
  });

  it("is served by the 2026-07-28 lane's own handler when enabled, outside the pipeline, and unknown otherwise", async () => {
    const log = vi.spyOn(console, "log");
    const check = vi.spyOn(CoordinatedRateLimiter.prototype, "check");
    const leased = vi.spyOn(LeasedRateLimiter.prototype, "check");
    const enabled = await statelessCall({ ...env, ...ENABLED }, BENCH_BARE_TOOL);
    expect(enabled.result?.structuredContent).toEqual({ ok: true, tool: BENCH_BARE_TOOL });
    expect(check).not.toHaveBeenCalled();
    expect(leased).not.toHaveBeenCalled();
    expect(log.mock.calls.some((call) => String(call[0]).includes('"event":"audit"'))).toBe(false);

    const off = await statelessCall(env, BENCH_BARE_TOOL);
    expect(off.result?.structuredContent).toBeUndefined();
    expect(JSON.stringify(off)).toMatch(/bench_bare/);
    expect(off.result?.isError ?? Boolean(off.error)).toBe(true);
  });

  it("has a governed twin, bench_governed: the same answer through the core in both eras (rate-limit decision, audit record)", async () => {
    const { client, records } = await connect({ ...env, ...ENABLED });
    const session = await client.callTool({ name: BENCH_GOVERNED_TOOL, arguments: {} });
    expect(session.structuredContent).toEqual({ ok: true, tool: BENCH_BARE_TOOL });
    expect(records).toMatchObject([{ kind: "tool", target: BENCH_GOVERNED_TOOL, outcome: "ok" }]);
    await expect(
      connect(env).then(({ client: off }) => off.callTool({ name: BENCH_GOVERNED_TOOL, arguments: {} })),
    ).rejects.toThrow(/Unknown tool "bench_governed"/);

    const leased = vi.spyOn(LeasedRateLimiter.prototype, "check");
    const stateless = await statelessCall({ ...env, ...ENABLED }, BENCH_GOVERNED_TOOL);
    expect(stateless.result?.structuredContent).toEqual({ ok: true, tool: BENCH_BARE_TOOL });
    expect(leased).toHaveBeenCalledTimes(1);
    // The stateless lane stores the record just after the answer (waitUntil).
    const stored = async () =>
      (await auditTrailIn(env.AUDIT_LOG)("acme").query("acme", { target: BENCH_GOVERNED_TOOL, limit: 10 })).events;
    for (let attempt = 0; attempt < 100 && (await stored()).length === 0; attempt++)
      await new Promise((done) => setTimeout(done, 20));
    expect(await stored()).toMatchObject([{ kind: "tool", target: BENCH_GOVERNED_TOOL, outcome: "ok" }]);
  });

  it("is never taken for an unknown tool by the /mcp front when on (which would audit and count it a second time)", () => {
    const call = (name: string) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } });
    for (const name of [BENCH_BARE_TOOL, BENCH_GOVERNED_TOOL]) {
      expect(unknownToolCalls(call(name), getCatalog(), toolsServedBesideCatalog(ENABLED))).toEqual([]);
      expect(
        unknownToolCalls(call(name), getCatalog(), toolsServedBesideCatalog({ PUBLIC_URL: ENABLED.PUBLIC_URL })),
      ).toHaveLength(1);
    }
  });
});
