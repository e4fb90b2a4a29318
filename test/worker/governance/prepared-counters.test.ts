/**
 * A client's first contact has its rate-limit counters loaded (src/mcp/front/era-router.ts calls prepareCounters on
 * `initialize` and on `server/discover`), so its first tools/call is decided from memory instead of waiting for the
 * coordinator to list them in KV. Shown here by a counter that is in KV at the first contact and gone from KV when the
 * first call comes: the call is refused by the count loaded then. Without the preparation the first call would list
 * KV itself, find nothing and be admitted.
 */
import type { OAuthResourceAuth } from "@cloudflare/workers-oauth-provider";
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Env } from "../../../src/env";
import { mcpResourceHandler } from "../../../src/mcp/http";
import type { GrantProps } from "../../../src/oauth/grant-props";
import { counterKey } from "../../../src/ratelimit/keys";
import { prepareCounters } from "../../../src/ratelimit/limiter";
import { mcpPrincipal, type Verified } from "../harness";
import { MCP_URL, MODERN_ENVELOPE, MODERN_ERA, modernPost, readRpc, rpc } from "../helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

/** A POST straight to the /mcp handler as `principal`, returned once the request's background work has settled. */
async function postAndSettle(
  principal: Verified,
  message: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  const ctx = createExecutionContext() as ExecutionContext & { props: GrantProps; auth: OAuthResourceAuth };
  ctx.props = principal.props;
  ctx.auth = principal.auth;
  const request = new Request(MCP_URL, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: "Bearer harness-verified-principal-not-a-token",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...message }),
  });
  const response = await mcpResourceHandler.fetch(request, env as unknown as Env, ctx);
  const settled = new Response(await response.text(), response);
  await waitOnExecutionContext(ctx);
  return settled;
}

async function initializeAndSettle(principal: Verified): Promise<string> {
  const response = await postAndSettle(principal, {
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1.0.0" } },
  });
  expect(response.status).toBe(200);
  const sessionId = response.headers.get("mcp-session-id");
  if (!sessionId) throw new Error("initialize answered no session id");
  return sessionId;
}

/** whoami's quota (30 per 60 s) used up in this window, in KV, as another place this client called from left it. */
async function usedUpInKv(principal: Verified): Promise<string> {
  const key = await counterKey(principal.props.organizationId, principal.auth.clientId!, "whoami");
  const used = { start: Date.now(), count: 30 };
  await env.RATE_LIMIT_KV.put(key, JSON.stringify(used), { metadata: used, expirationTtl: 120 });
  return key;
}

describe("a client's first contact prepares its rate-limit counters", () => {
  it("loads the counters at initialize: the first call is decided by them, not by a later KV listing", async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const principal = mcpPrincipal("ana", undefined, { clientId: `prepared-${crypto.randomUUID().slice(0, 8)}` });
    const key = await usedUpInKv(principal);

    const sessionId = await initializeAndSettle(principal);
    await env.RATE_LIMIT_KV.delete(key);

    const reply = await rpc(principal, sessionId, "tools/call", { name: "whoami", arguments: {} });
    expect(reply.result?.isError).toBe(true);
    expect(reply.result?.content?.[0]?.text).toMatch(/Rate limit reached/);
  });

  it("loads them at server/discover too: a 2026-07-28 client's first call is decided by them", async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const principal = mcpPrincipal("ana", undefined, { clientId: `prepared-${crypto.randomUUID().slice(0, 8)}` });
    const key = await usedUpInKv(principal);

    const discovered = await postAndSettle(
      principal,
      { method: "server/discover", params: { _meta: MODERN_ENVELOPE } },
      { "MCP-Protocol-Version": MODERN_ERA, "Mcp-Method": "server/discover" },
    );
    expect(discovered.status).toBe(200);
    await env.RATE_LIMIT_KV.delete(key);

    const [reply] = await readRpc(await modernPost(principal, "tools/call", { name: "whoami", arguments: {} }));
    expect(reply?.result?.isError).toBe(true);
    expect(reply?.result?.content?.[0]?.text).toMatch(/Rate limit reached/);
  });

  it("counts no call itself: a new client's first call after its session's start leaves 29 of 30", async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const principal = mcpPrincipal("ana");
    const sessionId = await initializeAndSettle(principal);
    const reply = await rpc(principal, sessionId, "tools/call", { name: "whoami", arguments: {} });
    expect(reply.result?.isError).toBeFalsy();
    const quotas = reply.result?.structuredContent?.quotas as Array<{ tool: string; remaining: number | null }>;
    expect(quotas.find((quota) => quota.tool === "whoami")?.remaining).toBe(29);
  });

  it("never fails a session's start when the coordinator cannot be reached: it is logged", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const unreachable = {
      idFromName: () => {
        throw new Error("coordinator namespace unavailable");
      },
    } as unknown as Env["RATE_LIMITER"];
    await expect(prepareCounters(unreachable, { organizationId: "acme", clientId: "c" })).resolves.toBeUndefined();
    expect(warn.mock.calls.map((call) => String(call[0])).join("\n")).toMatch(
      /rate-limit counters could not be prepared/,
    );
  });
});
