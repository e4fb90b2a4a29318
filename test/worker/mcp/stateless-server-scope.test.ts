// The stateless lane builds a server per request (v2/handler.ts): a request that is one tools/call of a tool this
// deployment serves gets a server holding that tool alone; every other request gets the whole catalog. A real SDK
// v2 client reads what each server serves over an in-memory transport.
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Principal } from "../../../src/core/principal";
import { getCatalog } from "../../../src/mcp/deployment-catalog";
import { onlyToolCalled } from "../../../src/mcp/stateless/handler";
import { createStatelessServer, type StatelessRuntime } from "../../../src/mcp/stateless/server";
import type { Env } from "../../../src/env";

const principal: Principal = {
  organizationId: "acme",
  userId: "ana",
  clientId: "c-scope",
  role: "admin",
  scopes: ["orders.read"],
};
const runtime: StatelessRuntime = {
  env,
  principal,
  correlationId: "00000000-0000-4000-8000-000000000000",
  audit: { record: async () => undefined },
  rateLimiter: { check: async () => ({ allowed: true }) },
};

async function servedBy(onlyTool: string | undefined) {
  const server = createStatelessServer(getCatalog(), runtime, onlyTool);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "scope-test", version: "1.0.0" });
  await client.connect(clientTransport);
  return client;
}

const call = (name: unknown) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } });
const ENABLED = { ...env, ARBITER_BENCH_BARE: "true", PUBLIC_URL: "http://localhost:8787" } as Env;

describe("the stateless lane's server per request", () => {
  it("holds only the called tool for a single tools/call, and answers that call", async () => {
    const client = await servedBy("whoami");
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["whoami"]);
    expect((await client.listResources()).resources).toEqual([]);
    const result = await client.callTool({ name: "whoami", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ organization: { id: "acme" }, userId: "ana" });
  });

  it("holds the whole catalog otherwise", async () => {
    const client = await servedBy(undefined);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
      [...getCatalog().tools.keys()].sort(),
    );
    expect((await client.listResources()).resources.length).toBe(getCatalog().resources.size);
  });

  it("scopes a request to one tool only when it is one tools/call of a tool that is served", () => {
    expect(onlyToolCalled(call("whoami"), env)).toBe("whoami");
    expect(onlyToolCalled(call("orders_search"), env)).toBe("orders_search");
    // A listing, a batch, an unknown or malformed name: the whole catalog, so the answer is what it always was.
    expect(onlyToolCalled({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }, env)).toBeUndefined();
    expect(onlyToolCalled([call("whoami")], env)).toBeUndefined();
    expect(onlyToolCalled(call("no_such_tool"), env)).toBeUndefined();
    expect(onlyToolCalled(call(42), env)).toBeUndefined();
    expect(onlyToolCalled(undefined, env)).toBeUndefined();
    // The benchmark tools are served beside the catalog only when bench mode is on.
    expect(onlyToolCalled(call("bench_bare"), env)).toBeUndefined();
    expect(onlyToolCalled(call("bench_bare"), ENABLED)).toBe("bench_bare");
  });
});
