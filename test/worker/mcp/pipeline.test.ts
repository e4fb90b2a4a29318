// The tool pipeline, driven by a real SDK Client over an in-memory transport inside workerd: scope check,
// rate limit, input validation, handler, audit and error mapping, in that order, for every tool.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AuditRecord, AuditSink } from "../../../src/audit/record";
import { buildCatalog, CatalogError, type Catalog } from "../../../src/mcp/catalog";
import { ToolFailure, type Registrar, type SessionState } from "../../../src/mcp/context";
import type { Principal } from "../../../src/core/principal";
import { getCatalog } from "../../../src/mcp/deployment-catalog";
import { createArbiterServer } from "../../../src/mcp/session/server";
import { getPolicy } from "../../../src/policy/load";
import type { RateLimiter } from "../../../src/ratelimit/hook";

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const testTools: Registrar = (ctx) => {
  ctx.registerTool({
    name: "echo_pii",
    title: "Echo",
    description: "Echoes a name; needs orders.pii.",
    inputSchema: z.object({
      name: z.string().min(1).describe("A name"),
      count: z.number().int().optional().describe("Repeat count"),
    }),
    outputSchema: z.object({ echoed: z.string() }),
    annotations: readOnly,
    requiredScopes: ["orders.pii"],
    async handler({ name }) {
      return { structuredContent: { echoed: name } };
    },
  });
  ctx.registerTool({
    name: "explode",
    title: "Explode",
    description: "Throws an unexpected error carrying internals.",
    inputSchema: z.object({}),
    outputSchema: z.object({ never: z.string() }),
    annotations: readOnly,
    requiredScopes: ["orders.read"],
    async handler() {
      throw new Error("connect ECONNREFUSED 10.0.0.7:5432 password=hunter2");
    },
  });
  ctx.registerTool({
    name: "slow_upstream",
    title: "Slow",
    description: "Fails the way a timed-out upstream does.",
    inputSchema: z.object({}),
    outputSchema: z.object({ never: z.string() }),
    annotations: readOnly,
    requiredScopes: ["orders.read"],
    async handler() {
      throw new ToolFailure("timeout", "upstream timed out after 3 s");
    },
  });
  ctx.registerTool({
    name: "bad_output",
    title: "Bad output",
    description: "Returns output that breaks its own schema.",
    inputSchema: z.object({}),
    outputSchema: z.object({ count: z.number() }),
    annotations: readOnly,
    requiredScopes: ["orders.read"],
    async handler() {
      return { structuredContent: { count: "three" as unknown as number } };
    },
  });
  ctx.registerTool({
    name: "long_work",
    title: "Long work",
    description: "Reports progress.",
    inputSchema: z.object({ steps: z.number().int().min(1).max(5) }),
    outputSchema: z.object({ done: z.number() }),
    annotations: readOnly,
    requiredScopes: ["orders.read"],
    async handler({ steps }, context) {
      for (let i = 1; i <= steps; i++) await context.progress(i, steps, `step ${i}`);
      return { structuredContent: { done: steps } };
    },
  });
};

function memorySession(): SessionState {
  const data = new Map<string, unknown>();
  return { get: async <T>(k: string) => data.get(k) as T | undefined, put: async (k, v) => void data.set(k, v) };
}

async function connect(
  catalog: Catalog,
  principal: Principal,
  rateLimiter: RateLimiter = { check: async () => ({ allowed: true }) },
) {
  const records: AuditRecord[] = [];
  const audit: AuditSink = { record: async (r) => void records.push(r) };
  const limiterCalls: string[] = [];
  const limiter: RateLimiter = { check: async (s) => (limiterCalls.push(s.target), rateLimiter.check(s)) };
  const server = createArbiterServer(catalog, {
    env,
    session: memorySession(),
    audit,
    rateLimiter: limiter,
    principalOf: () => principal,
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "pipeline-test", version: "1.0.0" });
  await client.connect(clientTransport);
  return { client, records, limiterCalls };
}

const principal = (scopes: string[]): Principal => ({
  organizationId: "acme",
  userId: "ana",
  clientId: "client-1",
  role: "admin",
  scopes,
});
const catalog = buildCatalog([testTools], getPolicy().scopeNames);
const text = (result: unknown) => (result as { content?: Array<{ text: string }> }).content?.[0]?.text ?? "";

describe("tool pipeline", () => {
  it("refuses a call without the tool's scope, naming it, before the rate limit and the handler", async () => {
    const { client, records, limiterCalls } = await connect(catalog, principal(["orders.read"]));
    const result = await client.callTool({ name: "echo_pii", arguments: { name: "Ana" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('"orders.pii"');
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta).toMatchObject({ missingScopes: ["orders.pii"] });
    expect(limiterCalls).toEqual([]);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      target: "echo_pii",
      outcome: "rejected-by-policy",
      organizationId: "acme",
      userId: "ana",
      clientId: "client-1",
      kind: "tool",
    });
  });

  it("refuses a rate-limited call before validating input, with retryAfter in _meta", async () => {
    const denied: RateLimiter = {
      check: async () => ({ allowed: false, limit: 30, windowSeconds: 60, retryAfterSeconds: 17 }),
    };
    const { client, records } = await connect(catalog, principal(["orders.pii"]), denied);
    const result = await client.callTool({ name: "echo_pii", arguments: { name: 42 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/30 calls per 60 s.*Retry after 17 s/);
    expect(result._meta).toMatchObject({ retryAfter: 17 });
    expect(records.map((r) => r.outcome)).toEqual(["rate-limited"]);
  });

  it("names the field when arguments are invalid", async () => {
    const { client, records } = await connect(catalog, principal(["orders.pii"]));
    const result = await client.callTool({ name: "echo_pii", arguments: { name: 42, count: "x" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("name must be a string");
    expect(text(result)).toContain("count must be a number");
    expect(result.structuredContent).toBeUndefined();
    expect(records.map((r) => r.outcome)).toEqual(["invalid-input"]);
  });

  it("returns structuredContent, JSON text and the correlation id on success, with one audit record", async () => {
    const { client, records } = await connect(catalog, principal(["orders.pii"]));
    const result = await client.callTool({ name: "echo_pii", arguments: { name: "Ana" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ echoed: "Ana" });
    expect(JSON.parse(text(result))).toEqual({ echoed: "Ana" });
    const correlationId = (result._meta as { correlationId: string }).correlationId;
    expect(records).toHaveLength(1);
    expect(records[0]!.correlationId).toBe(correlationId);
    expect(records[0]!.outcome).toBe("ok");
    expect(records[0]!.argumentsDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(records[0])).not.toContain("Ana");
  });

  it("maps an unexpected error to a safe message without internals", async () => {
    const { client, records } = await connect(catalog, principal(["orders.read"]));
    const result = await client.callTool({ name: "explode", arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/internal error\. .*\(correlation id [0-9a-f-]{36}\)$/);
    expect(text(result)).not.toMatch(/hunter2|ECONNREFUSED|10\.0\.0\.7|at .*\.ts/);
    expect(result.structuredContent).toBeUndefined();
    expect(records[0]).toMatchObject({ outcome: "error", reason: "unexpected failure" });
  });

  it("maps a handled failure to its outcome and safe message", async () => {
    const { client, records } = await connect(catalog, principal(["orders.read"]));
    const result = await client.callTool({ name: "slow_upstream", arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("upstream timed out after 3 s");
    expect(records[0]!.outcome).toBe("timeout");
  });

  it("does not return output that breaks the tool's own schema", async () => {
    const { client, records } = await connect(catalog, principal(["orders.read"]));
    const result = await client.callTool({ name: "bad_output", arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(records[0]!.outcome).toBe("error");
  });

  it("sends progress notifications when the client asks for them", async () => {
    const { client } = await connect(catalog, principal(["orders.read"]));
    const seen: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await client.callTool({ name: "long_work", arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => void seen.push(p),
    });
    expect(result.structuredContent).toEqual({ done: 3 });
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(seen[2]).toMatchObject({ total: 3, message: "step 3" });
  });

  it("answers an unknown tool with a JSON-RPC error, not a tool result", async () => {
    const { client, records } = await connect(catalog, principal(["orders.read"]));
    const error = await client.callTool({ name: "no_such_tool", arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toContain("no_such_tool");
    expect(records).toHaveLength(0);
  });

  it("lists every tool with a title, annotations and input/output JSON schemas", async () => {
    const { client } = await connect(catalog, principal([]));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "bad_output",
      "echo_pii",
      "explode",
      "long_work",
      "slow_upstream",
    ]);
    const echo = tools.find((t) => t.name === "echo_pii")!;
    expect(echo.inputSchema).toMatchObject({
      type: "object",
      properties: { name: { type: "string", description: "A name" } },
      required: ["name"],
    });
    expect(echo.outputSchema).toMatchObject({ type: "object", properties: { echoed: { type: "string" } } });
    expect(echo.annotations).toMatchObject({ title: "Echo", readOnlyHint: true, destructiveHint: false });
  });
});

describe("every registered tool goes through the pipeline", () => {
  it("each tool of the real catalog leaves exactly one audit record per call and is refused without its scopes", async () => {
    const real = getCatalog();
    const { client, records } = await connect(real, principal([]));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...real.tools.keys()].sort());
    for (const tool of tools) {
      const before = records.length;
      const result = await client.callTool({ name: tool.name, arguments: {} });
      expect(records.length, tool.name).toBe(before + 1);
      expect(records.at(-1)!.target).toBe(tool.name);
      const required = real.tools.get(tool.name)!.requiredScopes;
      if (required.length > 0) {
        expect(result.isError, tool.name).toBe(true);
        expect(records.at(-1)!.outcome, tool.name).toBe("rejected-by-policy");
      }
    }
  });

  it("every tool has a valid name, a title and annotations that fit its scopes", () => {
    for (const tool of getCatalog().tools.values()) {
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.name).toMatch(/^[a-z0-9_]+$/);
      expect(tool.title.length).toBeGreaterThan(0);
      // The hints' types are the compiler's business; what it cannot see is whether they fit what the tool does.
      if (tool.annotations.readOnlyHint) expect(tool.annotations.destructiveHint, tool.name).toBe(false);
      if (tool.requiredScopes.some((scope) => /\.(write|admin)$/.test(scope)))
        expect(tool.annotations.readOnlyHint, `${tool.name} needs a write scope`).toBe(false);
    }
  });
});

describe("catalog checks at start-up", () => {
  const base = {
    title: "T",
    description: "D",
    inputSchema: z.object({}),
    outputSchema: z.object({}),
    annotations: readOnly,
    async handler() {
      return { structuredContent: {} };
    },
  };
  it("refuses names clients reject, duplicates and unknown scopes", () => {
    expect(() =>
      buildCatalog(
        [(ctx) => ctx.registerTool({ ...base, name: "orders.search", requiredScopes: [] })],
        getPolicy().scopeNames,
      ),
    ).toThrow(CatalogError);
    expect(() =>
      buildCatalog(
        [
          (ctx) => {
            ctx.registerTool({ ...base, name: "a", requiredScopes: [] });
            ctx.registerTool({ ...base, name: "a", requiredScopes: [] });
          },
        ],
        getPolicy().scopeNames,
      ),
    ).toThrow(/twice/);
    expect(() =>
      buildCatalog(
        [(ctx) => ctx.registerTool({ ...base, name: "b", requiredScopes: ["orders.everything"] })],
        getPolicy().scopeNames,
      ),
    ).toThrow(/unknown scope "orders.everything"/);
  });
});
