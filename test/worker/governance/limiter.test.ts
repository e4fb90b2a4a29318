/**
 * The Worker-side limiter against the real coordinator Durable Objects (RATE_LIMITER) and KV: exactness
 * under concurrency, per-tool and per-organization overrides from a policy object, restore after the
 * coordinator is evicted, and the policy's onStoreFailure when the coordinator cannot be reached.
 */
import { env, evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { logAuditSink } from "../../../src/audit/record";
import type { ToolDefinition } from "../../../src/mcp/context";
import type { Principal } from "../../../src/core/principal";
import { runToolCall } from "../../../src/mcp/pipeline";
import { STORE_FAILURE_RETRY_SECONDS } from "../../../src/ratelimit/coordinator-core";
import type { RateLimitDecision } from "../../../src/ratelimit/hook";
import { coordinatorName, counterKey } from "../../../src/ratelimit/keys";
import { CoordinatedRateLimiter, coordinatorsIn, rateLimiterFor } from "../../../src/ratelimit/limiter";
import { getRateLimitPolicy, rateLimitFileSchema, type RateLimitPolicy } from "../../../src/ratelimit/policy";

function policyWith(overrides: Partial<RateLimitPolicy>): RateLimitPolicy {
  return rateLimitFileSchema.parse({ ...getRateLimitPolicy(), ...overrides });
}

function client(): string {
  return `client-${crypto.randomUUID()}`;
}

async function admittedOf(
  limiter: CoordinatedRateLimiter,
  organizationId: string,
  clientId: string,
  target: string,
  calls: number,
): Promise<number> {
  const decisions = await Promise.all(
    Array.from({ length: calls }, () => limiter.check({ organizationId, clientId, target })),
  );
  return decisions.filter((d) => d.allowed).length;
}

describe("coordinated rate limiter (Durable Object + KV)", () => {
  it("admits exactly 30 of 100 concurrent calls through the coordinator", async () => {
    const limiter = rateLimiterFor(env);
    expect(await admittedOf(limiter, "acme", client(), "whoami", 100)).toBe(30);
  });

  it("shares one quota across every caller of the same client, and keeps clients apart", async () => {
    const shared = client();
    // Two limiter instances stand for two sessions (two Durable Objects) of one client.
    const sessionA = rateLimiterFor(env);
    const sessionB = rateLimiterFor(env);
    const [a, b] = await Promise.all([
      admittedOf(sessionA, "acme", shared, "whoami", 20),
      admittedOf(sessionB, "acme", shared, "whoami", 20),
    ]);
    expect(a + b).toBe(30);
    expect(await admittedOf(sessionA, "acme", client(), "whoami", 5)).toBe(5);
  });

  it("applies per-tool and per-organization overrides from the policy", async () => {
    const policy = policyWith({
      default: { limit: 6, windowSeconds: 60 },
      tools: { whoami: { limit: 2, windowSeconds: 60 } },
      organizations: {
        globex: {
          default: { limit: 4, windowSeconds: 60 },
          tools: { audit_events_list: { limit: 1, windowSeconds: 60 } },
          rest: { limit: 3, windowSeconds: 60 },
        },
      },
    });
    const limiter = rateLimiterFor(env, policy);
    const id = client();
    expect(await admittedOf(limiter, "acme", id, "whoami", 10)).toBe(2);
    expect(await admittedOf(limiter, "acme", id, "audit_events_list", 10)).toBe(6);
    expect(await admittedOf(limiter, "acme", id, "rest", 130)).toBe(120);
    expect(await admittedOf(limiter, "globex", id, "whoami", 10)).toBe(2);
    expect(await admittedOf(limiter, "globex", id, "audit_events_list", 10)).toBe(1);
    expect(await admittedOf(limiter, "globex", id, "some_other_tool", 10)).toBe(4);
    expect(await admittedOf(limiter, "globex", id, "rest", 10)).toBe(3);

    const usage = await limiter.usage({ organizationId: "globex", clientId: id }, ["whoami", "never_called"]);
    expect(usage).toEqual([
      { target: "whoami", limit: 2, windowSeconds: 60, remaining: 0, resetsInSeconds: expect.any(Number) },
      { target: "never_called", limit: 4, windowSeconds: 60, remaining: 4, resetsInSeconds: 0 },
    ]);
  });

  it("restores the count from KV after the coordinator is evicted", async () => {
    const limiter = rateLimiterFor(env);
    const id = client();
    expect(await admittedOf(limiter, "acme", id, "whoami", 20)).toBe(20);
    // Write-behind: wait until the coordinator has persisted the count (at most ~1 s).
    const key = await counterKey("acme", id, "whoami");
    for (let attempt = 0; attempt < 100; attempt++) {
      const stored = JSON.parse((await env.RATE_LIMIT_KV.get(key)) ?? "null") as { count?: number } | null;
      if (stored?.count === 20) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(coordinatorName("acme", id)));
    await evictDurableObject(stub);
    expect(await admittedOf(limiter, "acme", id, "whoami", 20)).toBe(10);
  });

  it("fails open or closed per policy when the coordinator cannot be reached", async () => {
    const unreachable = () => ({
      check: async (): Promise<RateLimitDecision> => {
        throw new Error("Durable Object is overloaded");
      },
      usage: async () => {
        throw new Error("Durable Object is overloaded");
      },
    });
    const subject = { organizationId: "acme", clientId: client(), target: "whoami" };
    const open = new CoordinatedRateLimiter(
      unreachable,
      policyWith({ onStoreFailure: { tools: "open", rest: "closed" } }),
    );
    expect(await open.check(subject)).toEqual({ allowed: true, limit: 30 });
    expect(await open.check({ ...subject, target: "rest" })).toEqual({
      allowed: false,
      limit: 120,
      windowSeconds: 60,
      retryAfterSeconds: STORE_FAILURE_RETRY_SECONDS,
      cause: "store-unavailable",
    });
    const closed = new CoordinatedRateLimiter(
      unreachable,
      policyWith({ onStoreFailure: { tools: "closed", rest: "open" } }),
    );
    expect(await closed.check(subject)).toMatchObject({ allowed: false, cause: "store-unavailable" });
    expect(await closed.check({ ...subject, target: "rest" })).toMatchObject({ allowed: true });
    expect(await closed.usage(subject, ["whoami"])).toEqual([
      { target: "whoami", limit: 30, windowSeconds: 60, remaining: null, resetsInSeconds: null },
    ]);
  });

  it("refuses a limited tool call in the pipeline before the tool's handler (and its upstream) runs", async () => {
    let handlerRuns = 0;
    const tool: ToolDefinition = {
      name: "upstream_probe",
      title: "Upstream probe",
      description: "Counts how often its handler runs.",
      inputSchema: z.object({}),
      outputSchema: z.object({ runs: z.number() }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      requiredScopes: [],
      async handler() {
        handlerRuns++;
        return { structuredContent: { runs: handlerRuns } };
      },
    };
    const limiter = rateLimiterFor(env, policyWith({ tools: { upstream_probe: { limit: 2, windowSeconds: 60 } } }));
    const principal: Principal = {
      organizationId: "acme",
      userId: "ana",
      clientId: client(),
      role: "admin",
      scopes: [],
    };
    const context = {
      principal,
      env,
      session: { get: async () => undefined, put: async () => undefined },
      signal: new AbortController().signal,
      progress: async () => undefined,
    };
    const results = [];
    for (let i = 0; i < 4; i++)
      results.push(await runToolCall(tool, {}, context, { audit: logAuditSink, rateLimiter: limiter }));
    expect(results.map((r) => Boolean(r.isError))).toEqual([false, false, true, true]);
    expect(handlerRuns).toBe(2);
    expect(results[2]!.content[0]!.text).toContain("Rate limit reached: upstream_probe allows 2 calls per 60 s");
    expect(results[2]!._meta).toMatchObject({ limit: 2, windowSeconds: 60, retryAfter: expect.any(Number) });
  });

  it("reaches the same coordinator for one (organization, client) from the namespace", async () => {
    const lookup = coordinatorsIn(env.RATE_LIMITER);
    const id = client();
    const quota = {
      organizationId: "acme",
      clientId: id,
      target: "whoami",
      limit: 3,
      windowSeconds: 60,
      onStoreFailure: "closed" as const,
    };
    await lookup("acme", id).check(quota);
    await lookup("acme", id).check(quota);
    expect(await lookup("acme", id).check(quota)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await lookup("globex", id).check({ ...quota, organizationId: "globex" })).toMatchObject({
      allowed: true,
      remaining: 2,
    });
  });
});
