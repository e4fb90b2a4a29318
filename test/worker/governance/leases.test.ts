/**
 * Rate-limit leases (src/ratelimit/leases.ts) against the real coordinator Durable Objects and KV: exact under
 * concurrency with far fewer round trips than calls, never more than the quota across holders (every call of the
 * window is either admitted or still leased), and a new client's counters read with one KV listing instead of one
 * read per tool.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CoordinatorApi } from "../../../src/ratelimit/coordinator-rpc";
import { WindowCoordinator, type CounterKv } from "../../../src/ratelimit/coordinator-core";
import { counterKey } from "../../../src/ratelimit/keys";
import { LeasedRateLimiter } from "../../../src/ratelimit/leases";
import { coordinatorsIn } from "../../../src/ratelimit/limiter";
import { getRateLimitPolicy } from "../../../src/ratelimit/policy";
import { getCatalog } from "../../../src/mcp/deployment-catalog";

const client = () => `client-${crypto.randomUUID()}`;

/** The real coordinators, counting the lease round trips. */
function countingCoordinators() {
  const real = coordinatorsIn(env.RATE_LIMITER);
  const counter = { leases: 0 };
  const lookup = (organizationId: string, clientId: string): Pick<CoordinatorApi, "lease"> => ({
    lease(request) {
      counter.leases++;
      return real(organizationId, clientId).lease(request);
    },
  });
  return { lookup, counter };
}

/** KV that counts reads and listings. */
class ListingKv implements CounterKv {
  gets = 0;
  lists = 0;
  constructor(private readonly inner: KVNamespace) {}
  get(key: string, type: "text") {
    this.gets++;
    return this.inner.get(key, type);
  }
  put(key: string, value: string, options?: { expirationTtl?: number; metadata?: unknown }) {
    return this.inner.put(key, value, options);
  }
  async list(options: { prefix: string }) {
    this.lists++;
    const page = await this.inner.list(options);
    return {
      keys: page.keys.map((key) => ({ name: key.name, metadata: key.metadata })),
      list_complete: page.list_complete,
    };
  }
}

describe("rate-limit leases", () => {
  it("admits exactly 30 of 100 concurrent calls against a 30-per-window quota, in far fewer round trips", async () => {
    const { lookup, counter } = countingCoordinators();
    const limiter = new LeasedRateLimiter(lookup);
    const subject = { organizationId: "acme", clientId: client(), target: "whoami" };
    const decisions = await Promise.all(Array.from({ length: 100 }, () => limiter.check(subject)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(30);
    for (const refused of decisions.filter((d) => !d.allowed))
      expect(refused).toMatchObject({ allowed: false, limit: 30, windowSeconds: 60, cause: "quota" });
    expect(limiter.leasedUnused()).toBe(0);
    // Leases of 1, 4, 12, 6, 3, 2, 1 and 1 calls, then one that finds the window used up.
    expect(counter.leases).toBe(9);
    // The window is used up: a later call is refused from the lease, without asking again.
    const before = counter.leases;
    expect(await limiter.check(subject)).toMatchObject({ allowed: false, cause: "quota" });
    expect(counter.leases).toBe(before);
  });

  it("makes a round trip every several calls for one client's sequential calls, and leases one call to a client that calls once", async () => {
    const { lookup, counter } = countingCoordinators();
    const limiter = new LeasedRateLimiter(lookup);
    const subject = { organizationId: "acme", clientId: client(), target: "orders_search" };
    expect((await limiter.check(subject)).allowed).toBe(true);
    expect(limiter.leasedUnused()).toBe(0);
    for (let call = 1; call < 20; call++) expect((await limiter.check(subject)).allowed).toBe(true);
    // Leases of 1, 4, 12 (half of the 25 left) and 6 (half of 13) calls on the quota of 30.
    expect(counter.leases).toBe(4);
    expect(limiter.leasedUnused()).toBe(3);
  });

  it("with keepAlive, asks for a busy holder's next lease in the background, so the call after the last leased one does not wait", async () => {
    const { lookup, counter } = countingCoordinators();
    const kept: Array<Promise<unknown>> = [];
    const limiter = new LeasedRateLimiter(lookup, undefined, undefined, { keepAlive: (work) => kept.push(work) });
    const subject = { organizationId: "acme", clientId: client(), target: "whoami" };
    // A client that calls once, then twice: leases of 1 and 4 as without keepAlive, each asked for by the call that needs it.
    expect((await limiter.check(subject)).allowed).toBe(true);
    expect(kept).toHaveLength(0);
    for (let call = 1; call < 4; call++) expect((await limiter.check(subject)).allowed).toBe(true);
    expect({ leases: counter.leases, kept: kept.length, unused: limiter.leasedUnused() }).toEqual({
      leases: 2,
      kept: 0,
      unused: 1,
    });
    // The call that takes the 4-call lease's last one starts the next lease (12: half of the 25 left) in the background.
    expect((await limiter.check(subject)).allowed).toBe(true);
    expect(kept).toHaveLength(1);
    expect(await kept[0]).toBe("granted");
    expect({ leases: counter.leases, unused: limiter.leasedUnused() }).toEqual({ leases: 3, unused: 12 });
    // So the next call is decided from memory, with no round trip.
    expect((await limiter.check(subject)).allowed).toBe(true);
    expect({ leases: counter.leases, unused: limiter.leasedUnused() }).toEqual({ leases: 3, unused: 11 });
  });

  it("with keepAlive, stays exact: 100 concurrent calls on a 30-call quota admit 30, every call admitted or still leased", async () => {
    const { lookup } = countingCoordinators();
    const kept: Array<Promise<unknown>> = [];
    const a = new LeasedRateLimiter(lookup, undefined, undefined, { keepAlive: (work) => kept.push(work) });
    const b = new LeasedRateLimiter(lookup, undefined, undefined, { keepAlive: (work) => kept.push(work) });
    const subject = { organizationId: "acme", clientId: client(), target: "whoami" };
    const burst = (limiter: LeasedRateLimiter, calls: number) =>
      Promise.all(Array.from({ length: calls }, () => limiter.check(subject)));
    const [fromA, fromB] = await Promise.all([burst(a, 50), burst(b, 50)]);
    await Promise.all(kept);
    const admitted = [...fromA, ...fromB].filter((d) => d.allowed).length;
    expect(admitted).toBeLessThanOrEqual(30);
    expect(admitted + a.leasedUnused() + b.leasedUnused()).toBe(30);
    // A holder alone admits exactly the quota, prefetching or not.
    const alone = new LeasedRateLimiter(lookup, undefined, undefined, { keepAlive: (work) => kept.push(work) });
    const other = { ...subject, clientId: client() };
    let sequential = 0;
    for (let call = 0; call < 35; call++) if ((await alone.check(other)).allowed) sequential++;
    await Promise.all(kept);
    expect({ admitted: sequential, unused: alone.leasedUnused() }).toEqual({ admitted: 30, unused: 0 });
  });

  it("leaves a quiet holder at most half of what its window had left: the client's other holders get the rest", async () => {
    const { lookup } = countingCoordinators();
    const quiet = new LeasedRateLimiter(lookup);
    const busy = new LeasedRateLimiter(lookup);
    const subject = { organizationId: "acme", clientId: client(), target: "whoami" };
    // The quiet holder (a session that ended) makes 5 calls: leases of 1 and 4 (half of the 29 left caps nothing).
    for (let call = 0; call < 5; call++) expect((await quiet.check(subject)).allowed).toBe(true);
    expect(quiet.leasedUnused()).toBe(0);
    // Its next lease would be 16 calls; half of the 25 left caps it at 12, and it goes quiet after one of them.
    expect((await quiet.check(subject)).allowed).toBe(true);
    expect(quiet.leasedUnused()).toBe(11);
    let admitted = 0;
    for (let call = 0; call < 30; call++) if ((await busy.check(subject)).allowed) admitted++;
    expect(admitted).toBe(30 - 6 - 11);
  });

  it("never admits more than the quota across holders of one client: every call is admitted or still leased", async () => {
    const { lookup } = countingCoordinators();
    // Two holders stand for two session objects (or isolates) of one client.
    const a = new LeasedRateLimiter(lookup);
    const b = new LeasedRateLimiter(lookup);
    const subject = { organizationId: "acme", clientId: client(), target: "whoami" };
    const burst = (limiter: LeasedRateLimiter, calls: number) =>
      Promise.all(Array.from({ length: calls }, () => limiter.check(subject)));
    const [fromA, fromB] = await Promise.all([burst(a, 50), burst(b, 50)]);
    const admitted = [...fromA, ...fromB].filter((d) => d.allowed).length;
    expect(admitted).toBeLessThanOrEqual(30);
    expect(admitted + a.leasedUnused() + b.leasedUnused()).toBe(30);
  });

  it("shows whoami its quotas with the decision, this call counted", async () => {
    const { lookup } = countingCoordinators();
    const limiter = new LeasedRateLimiter(lookup);
    const report = [...getCatalog().tools.keys()];
    const subject = { organizationId: "acme", clientId: client(), target: "whoami", report };
    await limiter.check(subject);
    const second = await limiter.check(subject);
    expect(second.allowed && second.usage?.find((u) => u.target === "whoami")).toMatchObject({
      limit: 30,
      remaining: 28,
    });
    expect(second.allowed && second.usage?.find((u) => u.target === "orders_search")).toMatchObject({
      limit: 30,
      remaining: 30,
    });
  });

  it("reads a client's counters of every tool with one KV listing, and restores them from it after a restart", async () => {
    const organizationId = "acme";
    const clientId = client();
    const prefix = await counterKey(organizationId, clientId, "");
    const quota = getRateLimitPolicy().default;
    const tools = [...getCatalog().tools.keys()];
    expect(tools.length).toBeGreaterThan(10);
    const kv = new ListingKv(env.RATE_LIMIT_KV);
    const first = new WindowCoordinator({ kv, minWriteIntervalMs: 0, schedule: (_delay, task) => void task() });
    await first.loadAll(prefix);
    for (const tool of tools) await first.usage(await counterKey(organizationId, clientId, tool), quota);
    expect({ gets: kv.gets, lists: kv.lists }).toEqual({ gets: 0, lists: 1 });

    // Counted calls are written with their state in the key's metadata; a new coordinator lists them back.
    for (let call = 0; call < 3; call++)
      await first.check(await counterKey(organizationId, clientId, "whoami"), quota, "closed");
    const key = await counterKey(organizationId, clientId, "whoami");
    for (
      let attempt = 0;
      attempt < 100 &&
      ((await env.RATE_LIMIT_KV.getWithMetadata(key)).metadata as { count?: number } | null)?.count !== 3;
      attempt++
    ) {
      await new Promise((done) => setTimeout(done, 20));
    }
    const restarted = new ListingKv(env.RATE_LIMIT_KV);
    const second = new WindowCoordinator({ kv: restarted });
    await second.loadAll(prefix);
    expect(await second.usage(key, quota)).toMatchObject({ remaining: 27 });
    expect(restarted.gets).toBe(0);
  });
});
