/**
 * Rate limits over real MCP sessions (McpAgent Durable Objects) with the bundled policy (30 calls per
 * minute per tool per client): shared by two sessions of one client, refused with isError naming the
 * limit and retryAfter in _meta, separate per client, and visible in whoami.
 */
import { describe, expect, it } from "vitest";
import { getRateLimitPolicy, quotaFor } from "../../../src/ratelimit/policy";
import { initializeSession, obtainTokens, rpc } from "../helpers";

let nextId = 100;
async function callTool(token: string, session: string, name: string, args: Record<string, unknown> = {}) {
  const reply = await rpc(token, session, "tools/call", { name, arguments: args }, nextId++);
  if (!reply.result) throw new Error(`tools/call ${name} failed: ${JSON.stringify(reply.error)}`);
  return reply.result as {
    isError?: boolean;
    content: Array<{ text: string }>;
    structuredContent?: any;
    _meta: Record<string, any>;
  };
}

describe("MCP rate limits", () => {
  it("shares one client's quota across its two sessions and refuses the 31st call with when to retry", async () => {
    const quota = quotaFor(getRateLimitPolicy(), "acme", "whoami");
    expect(quota).toEqual({ limit: 30, windowSeconds: 60 });
    const { tokens } = await obtainTokens({ user: "dev", scope: "orders.read contracts.read" });
    const sessionA = await initializeSession(tokens.access_token);
    const sessionB = await initializeSession(tokens.access_token);
    expect(sessionA).not.toBe(sessionB);

    for (let i = 0; i < quota.limit; i++) {
      const result = await callTool(tokens.access_token, i % 2 === 0 ? sessionA : sessionB, "whoami");
      expect(result.isError, result.content[0]?.text).toBeFalsy();
    }
    for (const session of [sessionA, sessionB]) {
      const refused = await callTool(tokens.access_token, session, "whoami");
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toBeUndefined();
      expect(refused.content[0]!.text).toMatch(
        /^Rate limit reached: whoami allows 30 calls per 60 s for this client\. Retry after \d+ s/,
      );
      expect(refused._meta).toMatchObject({ limit: 30, windowSeconds: 60 });
      expect(refused._meta.retryAfter).toBeGreaterThan(0);
      expect(refused._meta.retryAfter).toBeLessThanOrEqual(60);
    }

    // Another client of the same user has its own quota.
    const other = await obtainTokens({ user: "dev", scope: "orders.read contracts.read" });
    const otherSession = await initializeSession(other.tokens.access_token);
    expect((await callTool(other.tokens.access_token, otherSession, "whoami")).isError).toBeFalsy();
  });

  it("shows the remaining quota per tool in whoami", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: "orders.read contracts.read audit.read" });
    const session = await initializeSession(tokens.access_token);
    await callTool(tokens.access_token, session, "whoami");
    await callTool(tokens.access_token, session, "audit_events_list", { limit: 1 });
    await callTool(tokens.access_token, session, "audit_events_list", { limit: 1 });
    const result = await callTool(tokens.access_token, session, "whoami");
    const quotas = result.structuredContent.quotas as Array<{
      tool: string;
      limit: number;
      windowSeconds: number;
      remaining: number;
      resetsInSeconds: number;
    }>;
    const byTool = new Map(quotas.map((q) => [q.tool, q]));
    expect(byTool.get("whoami")).toMatchObject({ limit: 30, windowSeconds: 60, remaining: 28 });
    expect(byTool.get("audit_events_list")).toMatchObject({ limit: 30, windowSeconds: 60, remaining: 28 });
    expect(byTool.get("whoami")!.resetsInSeconds).toBeGreaterThan(0);
    const listed = await rpc(tokens.access_token, session, "tools/list", {}, nextId++);
    expect(new Set(quotas.map((q) => q.tool))).toEqual(
      new Set(listed.result.tools.map((t: { name: string }) => t.name)),
    );
  });
});
