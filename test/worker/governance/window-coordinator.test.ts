/**
 * The coordinator's decision engine against the real local KV namespace (RATE_LIMIT_KV), wrapped to count
 * writes and inject failures, with a virtual clock: exactness under concurrency, window rollover, restore
 * after a restart, at most one KV write per second per key, and deliberate behaviour when KV fails.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { STORE_FAILURE_RETRY_SECONDS, WindowCoordinator } from "../../../src/ratelimit/coordinator-core";
import type { RateLimitDecision } from "../../../src/ratelimit/hook";
import { CountingKv, smallestGap, VirtualTime } from "./kv-harness";

let keySequence = 0;
function freshKey(): string {
  return `ratelimit:test:${++keySequence}:${crypto.randomUUID()}`;
}

function setup() {
  const time = new VirtualTime();
  const kv = new CountingKv(env.RATE_LIMIT_KV, time.clock);
  const coordinator = new WindowCoordinator({ kv, now: time.clock, schedule: time.schedule });
  return { time, kv, coordinator };
}

const admitted = (decisions: RateLimitDecision[]) => decisions.filter((d) => d.allowed).length;

describe("window coordinator", () => {
  it("admits exactly 30 of 100 concurrent calls against a limit of 30", async () => {
    const { coordinator } = setup();
    const key = freshKey();
    const decisions = await Promise.all(
      Array.from({ length: 100 }, () => coordinator.check(key, { limit: 30, windowSeconds: 60 }, "open")),
    );
    expect(admitted(decisions)).toBe(30);
    for (const decision of decisions.filter((d) => !d.allowed)) {
      expect(decision).toMatchObject({
        allowed: false,
        limit: 30,
        windowSeconds: 60,
        retryAfterSeconds: 60,
        cause: "quota",
      });
    }
    const remaining = decisions.filter((d) => d.allowed).map((d) => (d.allowed ? d.remaining : -1));
    expect(new Set(remaining).size).toBe(30);
    expect(Math.min(...(remaining as number[]))).toBe(0);
  });

  it("rolls the window over when it elapses, and says when to retry", async () => {
    const { coordinator, time } = setup();
    const key = freshKey();
    const quota = { limit: 3, windowSeconds: 10 };
    for (let i = 0; i < 3; i++) expect((await coordinator.check(key, quota, "open")).allowed).toBe(true);
    expect(await coordinator.check(key, quota, "open")).toMatchObject({ allowed: false, retryAfterSeconds: 10 });
    await time.advance(7_500);
    expect(await coordinator.check(key, quota, "open")).toMatchObject({ allowed: false, retryAfterSeconds: 3 });
    await time.advance(2_499);
    expect(await coordinator.check(key, quota, "open")).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    await time.advance(1);
    expect(await coordinator.check(key, quota, "open")).toMatchObject({ allowed: true, remaining: 2 });
    expect(await coordinator.usage(key, quota)).toEqual({ remaining: 2, resetsInSeconds: 10 });
  });

  it("restores counters from KV after a restart and continues the same window", async () => {
    const first = setup();
    const key = freshKey();
    const quota = { limit: 30, windowSeconds: 60 };
    for (let i = 0; i < 20; i++) expect((await first.coordinator.check(key, quota, "closed")).allowed).toBe(true);
    await first.time.advance(1_000);
    expect(JSON.parse((await env.RATE_LIMIT_KV.get(key)) ?? "null")).toMatchObject({ count: 20 });

    // A new instance (as after an eviction or restart) with empty memory, 5 s later.
    const restarted = new WindowCoordinator({
      kv: first.kv,
      now: () => first.time.now + 5_000,
      schedule: first.time.schedule,
    });
    const decisions = await Promise.all(Array.from({ length: 15 }, () => restarted.check(key, quota, "closed")));
    expect(admitted(decisions)).toBe(10);
    expect(decisions.find((d) => !d.allowed)).toMatchObject({ retryAfterSeconds: 54 });
  });

  it("writes each key to KV at most once per second during a 100-call burst, and persists the final count", async () => {
    const { coordinator, kv, time } = setup();
    const keys = [freshKey(), freshKey()];
    const quota = { limit: 1000, windowSeconds: 60 };
    // 100 calls spread over 3 s (one every 30 ms), alternating two keys, plus 100 at one instant.
    for (let i = 0; i < 100; i++) {
      await coordinator.check(keys[i % 2]!, quota, "open");
      await time.advance(30);
    }
    const instant = freshKey();
    await Promise.all(Array.from({ length: 100 }, () => coordinator.check(instant, quota, "open")));
    await time.advance(2_000);

    for (const key of [...keys, instant]) {
      const writes = kv.writesOf(key);
      expect(writes.length).toBeGreaterThanOrEqual(1);
      expect(smallestGap(writes)).toBeGreaterThanOrEqual(1_000);
    }
    expect(kv.writesOf(keys[0]!).length).toBeLessThanOrEqual(4);
    expect(kv.writesOf(instant).length).toBe(1);
    expect(JSON.parse((await env.RATE_LIMIT_KV.get(keys[0]!)) ?? "null")).toMatchObject({ count: 50 });
    expect(JSON.parse((await env.RATE_LIMIT_KV.get(keys[1]!)) ?? "null")).toMatchObject({ count: 50 });
    expect(JSON.parse((await env.RATE_LIMIT_KV.get(instant)) ?? "null")).toMatchObject({ count: 100 });
    expect(time.pendingTimers).toBe(0);
  });

  it("fails closed when KV cannot be read and the policy says closed, and recovers when KV answers", async () => {
    const { coordinator, kv } = setup();
    const key = freshKey();
    await env.RATE_LIMIT_KV.put(key, JSON.stringify({ start: Date.UTC(2026, 0, 1), count: 28 }));
    kv.failReads = true;
    const refused = await Promise.all(
      Array.from({ length: 5 }, () => coordinator.check(key, { limit: 30, windowSeconds: 60 }, "closed")),
    );
    for (const decision of refused) {
      expect(decision).toEqual({
        allowed: false,
        limit: 30,
        windowSeconds: 60,
        retryAfterSeconds: STORE_FAILURE_RETRY_SECONDS,
        cause: "store-unavailable",
      });
    }
    expect(await coordinator.usage(key, { limit: 30, windowSeconds: 60 })).toEqual({
      remaining: null,
      resetsInSeconds: null,
    });

    kv.failReads = false;
    const decisions = await Promise.all(
      Array.from({ length: 5 }, () => coordinator.check(key, { limit: 30, windowSeconds: 60 }, "closed")),
    );
    expect(admitted(decisions)).toBe(2);
  });

  it("fails open when KV cannot be read and the policy says open, staying exact from then on", async () => {
    const { coordinator, kv } = setup();
    const key = freshKey();
    await env.RATE_LIMIT_KV.put(key, JSON.stringify({ start: Date.UTC(2026, 0, 1), count: 30 }));
    kv.failReads = true;
    const decisions = await Promise.all(
      Array.from({ length: 12 }, () => coordinator.check(key, { limit: 5, windowSeconds: 60 }, "open")),
    );
    expect(admitted(decisions)).toBe(5);
    expect(kv.reads).toBe(1);
  });

  it("keeps deciding exactly while KV writes fail or are throttled, retrying at most once per second", async () => {
    const { coordinator, kv, time } = setup();
    const key = freshKey();
    const quota = { limit: 5, windowSeconds: 60 };
    kv.failWrites = "throttle";
    const burst = await Promise.all(Array.from({ length: 8 }, () => coordinator.check(key, quota, "closed")));
    expect(admitted(burst)).toBe(5);
    await time.advance(3_500);
    expect(kv.writesOf(key).length).toBe(4);
    expect(smallestGap(kv.writesOf(key))).toBeGreaterThanOrEqual(1_000);
    expect(await env.RATE_LIMIT_KV.get(key)).toBeNull();
    expect((await coordinator.check(key, quota, "closed")).allowed).toBe(false);

    kv.failWrites = "error";
    await time.advance(1_000);
    kv.failWrites = "none";
    await time.advance(1_000);
    expect(JSON.parse((await env.RATE_LIMIT_KV.get(key)) ?? "null")).toMatchObject({ count: 5 });
    expect(smallestGap(kv.writesOf(key))).toBeGreaterThanOrEqual(1_000);
    expect(time.pendingTimers).toBe(0);
  });

  it("treats a malformed stored counter as no window", async () => {
    const { coordinator } = setup();
    const key = freshKey();
    await env.RATE_LIMIT_KV.put(key, "not json");
    expect(await coordinator.check(key, { limit: 1, windowSeconds: 60 }, "closed")).toMatchObject({
      allowed: true,
      remaining: 0,
    });
  });
});
