/**
 * BENCHMARK BASELINE, NEVER DEPLOYED: the bare MCP server `npm run bench:mcp` and `npm run bench:coldstart` compare
 * Arbiter with, written the way a newcomer writes one from the Cloudflare docs (node_modules/agents/docs/
 * mcp-servers.md, the workers-oauth-provider README), with one constant tool, `bench_bare`, at /mcp:
 *  - 2025-11-25 sessions (`initialize`, then `Mcp-Session-Id`): `McpAgent` from `agents/mcp`, an SDK 1.x server in
 *    a Durable Object;
 *  - 2026-07-28 requests (MCP-Protocol-Version 2026-07-28): `createMcpHandler` from `agents/mcp/server` with an
 *    SDK 2.x (`@modelcontextprotocol/server`) server built per request;
 *  - both behind `OAuthProvider` from `@cloudflare/workers-oauth-provider`, as the docs protect /mcp.
 * Beside it, `bench_recorded`: the same answer given only after one record of the call is stored, where Arbiter
 * stores its audit record before it answers (docs/governance.md, "Audit trail"): in a session, in the session
 * object's own SQLite (Arbiter's outbox, without its later drain); statelessly, in a SQLite Durable Object
 * (`BareRecordStore`, one RPC awaited per call, where Arbiter groups the records of concurrent calls). It is the
 * least that guarantee adds to the bare call under `wrangler dev`, with none of Arbiter's code.
 * Its /authorize approves every request at once for a fixed user, so the benchmark gets tokens over HTTP without a
 * browser. That is why it must never be deployed: anyone could get a token. It has no scopes, rate limits, audit,
 * Origin/Host front or body bounds: those are what Arbiter adds and what the benchmark measures.
 */
import { OAuthProvider, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { McpServer as SessionMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpServer } from "@modelcontextprotocol/server";
import { McpAgent } from "agents/mcp";
import { createMcpHandler } from "agents/mcp/server";
import { DurableObject, env as workerEnv } from "cloudflare:workers";

interface Env {
  PUBLIC_URL: string;
  MCP_OBJECT: DurableObjectNamespace;
  RECORDS: DurableObjectNamespace<BareRecordStore>;
  OAUTH_KV: KVNamespace;
  OAUTH_PROVIDER: OAuthHelpers;
}

const TOOL = "bench_bare";
const DESCRIPTION = "Benchmark baseline: a constant answer.";
/** The same answer Arbiter's `bench_bare` gives (src/mcp/bench-bare.ts): structured content and its JSON text. */
function constantResult() {
  const structuredContent = { ok: true, tool: TOOL };
  return { content: [{ type: "text" as const, text: JSON.stringify(structuredContent, null, 2) }], structuredContent };
}

const RECORDED_TOOL = "bench_recorded";
const RECORDED_DESCRIPTION = "Benchmark floor: the constant answer after one record of the call is stored.";

const RECORDS_TABLE =
  "CREATE TABLE IF NOT EXISTS records (id INTEGER PRIMARY KEY, at TEXT NOT NULL, body TEXT NOT NULL)";
const INSERT_RECORD = "INSERT INTO records (at, body) VALUES (?, ?)";

/** A record of the call with the fields of Arbiter's audit record (src/audit/record.ts), as its time and JSON. */
function recordOfCall(): [string, string] {
  const time = new Date().toISOString();
  const record = {
    correlationId: crypto.randomUUID(),
    time,
    organizationId: "bench",
    userId: "bench",
    clientId: "bench-client",
    kind: "tool",
    target: RECORDED_TOOL,
    argumentsDigest: "",
    durationMs: 0,
    outcome: "ok",
    reason: "",
  };
  return [time, JSON.stringify(record)];
}

/** Where the stateless `bench_recorded` stores its records: one object, one row per call (as one day's audit store). */
export class BareRecordStore extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(RECORDS_TABLE);
  }

  append(time: string, body: string): void {
    this.ctx.storage.sql.exec(INSERT_RECORD, time, body);
  }
}

/** The 2025-11-25 lane: one McpAgent Durable Object per session. */
export class BareMcpAgent extends McpAgent {
  server = new SessionMcpServer({ name: "bare-mcp-bench", version: "1.0.0" });
  async init(): Promise<void> {
    this.ctx.storage.sql.exec(RECORDS_TABLE);
    this.server.registerTool(TOOL, { description: DESCRIPTION }, async () => constantResult());
    // The record in the session's own storage: the output gate holds the answer until it is written.
    this.server.registerTool(RECORDED_TOOL, { description: RECORDED_DESCRIPTION }, async () => {
      const [time, body] = recordOfCall();
      this.ctx.storage.sql.exec(INSERT_RECORD, time, body);
      return constantResult();
    });
  }
}

const sessionHandler = BareMcpAgent.serve("/mcp", { binding: "MCP_OBJECT" });

/** The 2026-07-28 lane: a fresh SDK 2.x server per request. */
const statelessHandler = createMcpHandler(() => {
  const server = new McpServer({ name: "bare-mcp-bench", version: "1.0.0" });
  server.registerTool(TOOL, { description: DESCRIPTION }, async () => constantResult());
  server.registerTool(RECORDED_TOOL, { description: RECORDED_DESCRIPTION }, async () => {
    await (workerEnv as unknown as Env).RECORDS.getByName("bench").append(...recordOfCall());
    return constantResult();
  });
  return server;
});

const mcpHandler = {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    if (request.headers.get("mcp-protocol-version") === "2026-07-28") return statelessHandler(request, env, ctx);
    return sessionHandler.fetch(request, env, ctx);
  },
};

/** Everything outside /mcp that the provider does not serve itself: /authorize (auto-approved) and /health. */
const defaultHandler = {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === "/health") return new Response("ok");
    if (pathname === "/authorize") {
      const authRequest = await env.OAUTH_PROVIDER.parseAuthRequest(request);
      const { redirectTo } = await env.OAUTH_PROVIDER.completeAuthorization({
        request: authRequest,
        userId: "bench",
        metadata: {},
        scope: authRequest.scope,
        props: { userId: "bench" },
      });
      return Response.redirect(redirectTo, 302);
    }
    return new Response("Not found", { status: 404 });
  },
};

/** The provider binds tokens to `${PUBLIC_URL}/mcp`, known only from env: built on the first request. */
let provider: { publicUrl: string; handler: OAuthProvider<Env> } | undefined;
function providerFor(publicUrl: string): OAuthProvider<Env> {
  if (provider?.publicUrl !== publicUrl) {
    const handler = new OAuthProvider<Env>({
      apiRoute: "/mcp",
      apiHandler: mcpHandler as never,
      defaultHandler: defaultHandler as never,
      authorizeEndpoint: "/authorize",
      tokenEndpoint: "/oauth/token",
      clientRegistrationEndpoint: "/oauth/register",
      resourceMetadata: { resource: `${publicUrl}/mcp`, authorization_servers: [publicUrl] },
    });
    provider = { publicUrl, handler };
  }
  return provider.handler;
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    return providerFor(env.PUBLIC_URL).fetch(request, env, ctx);
  },
};
