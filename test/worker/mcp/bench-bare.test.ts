// The benchmark's ungoverned baseline tool exists only with ARBITER_BENCH_BARE=true and a loopback PUBLIC_URL.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../../src/audit/record";
import { BENCH_BARE_TOOL, benchBareEnabled } from "../../../src/mcp/bench-bare";
import type { Env } from "../../../src/env";
import { getCatalog } from "../../../src/mcp/registry";
import { createArbiterServer } from "../../../src/mcp/server";

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
    await expect(client.callTool({ name: BENCH_BARE_TOOL, arguments: {} })).rejects.toThrow(/Unknown tool "bench_bare"/);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain(BENCH_BARE_TOOL);
  });

  it("answers without the pipeline when enabled: no audit record, no limiter", async () => {
    const { client, records } = await connect({ ...env, ARBITER_BENCH_BARE: "true", PUBLIC_URL: "http://localhost:8787" });
    const result = await client.callTool({ name: BENCH_BARE_TOOL, arguments: {} });
    expect(result.structuredContent).toEqual({ ok: true, tool: BENCH_BARE_TOOL });
    expect(records).toHaveLength(0);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain(BENCH_BARE_TOOL);
  });
});
