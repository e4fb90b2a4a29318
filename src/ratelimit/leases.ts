/**
 * Rate-limit leases: the limiter of a place that serves many calls of the same clients (a 2025-11-25 session
 * object, a Worker isolate) takes several calls of a window at once from the (organization, client) coordinator
 * and decides the calls itself, with no round trip, until the lease is used up or its window ends.
 *
 * - Never more than the quota: the coordinator counts a lease's calls when it grants them, and grants at most
 *   what its window has left; the holder decides in memory with no await between the look and the take, so
 *   100 concurrent calls against 30 admit exactly 30.
 * - Leases start at one call and grow fourfold with each lease a holder takes in a window (1, 4, 16, 64), capped
 *   at half of what the window has left (and MAX_LEASE): a client that calls once leases one call; a busy one
 *   makes a round trip every several calls instead of every call (20 sequential calls on a 30-call quota: 4).
 *   The round trips are the largest part of what a governed session call costs beyond a bare one: in one bench:mcp
 *   run, a single lease per window (an experiment) lifted the session lane's governed no-op from about 0.75x to
 *   0.97x bare throughput. The earlier schedule (doubling, at most a quarter of what was left) made 7 round trips
 *   for those 20 calls; docs/governance.md has the measurements.
 * - What this gives up: calls leased by a holder that then goes quiet (or is evicted) are not used by the
 *   client's other holders in that window, so a client spread over several sessions may be admitted fewer than
 *   its quota (at most the unused leases: half of what the window had left at the last lease, for the rest of that
 *   window); never more. `leasedUnused()` says how many.
 * - With `keepAlive` (the stateless lane's isolate, where it is the request's waitUntil), a holder that has taken
 *   two leases in a window asks for the next one in the background as soon as a call takes the last leased call,
 *   so the client's next call is decided from memory instead of waiting for the round trip. Under load those waits
 *   were most of the governed call's extra latency: in bench:mcp, with no lease to wait for (an experiment) the
 *   stateless `whoami` went from 1.27-1.33x to 1.00-1.05x bare p50. The lease asked for is the one the next call
 *   would have asked for (same size, same cap), only earlier, and a client that calls once or twice leases as
 *   before. The session lane has no keepAlive: an RPC its object left running after an answer stalled the worker
 *   suite once (src/mcp/deps.ts says how), so its holders renew when a call needs it.
 * - When the coordinator cannot be reached, the policy's onStoreFailure decides, as CoordinatedRateLimiter does.
 */
import type { CoordinatorApi, CoordinatorLease } from "./coordinator-rpc";
import { STORE_FAILURE_RETRY_SECONDS } from "./coordinator-core";
import type { QuotaUsage, RateLimitDecision, RateLimiter, RateLimitSubject } from "./hook";
import { withQuotas } from "./limiter";
import {
  getRateLimitPolicy,
  quotaFor,
  storeFailureModeFor,
  withOrganizationQuotas,
  type OrganizationQuotaLookup,
  type Quota,
  type RateLimitPolicy,
} from "./policy";
import { logWarn } from "../lib/log";

/** The largest lease, whatever the quota. */
export const MAX_LEASE = 64;

export type LeaseLookup = (organizationId: string, clientId: string) => Pick<CoordinatorApi, "lease">;

export interface LeaseOptions {
  /**
   * Keeps work started by a call running after its answer (the request's waitUntil). Given, the holder renews a
   * lease in the background once it runs out (from a window's second lease on); without it, when a call needs one.
   */
  keepAlive?: (work: Promise<unknown>) => void;
}

interface Lease {
  /** The quota the lease was taken under; a different one now voids what is left. */
  quota?: Quota;
  left: number;
  /** Epoch ms at which the leased window closes; the lease is void from then on. */
  windowEndsAt: number;
  /** Leases taken in this window (the next asks for twice as many calls). */
  taken: number;
  /** A refusal from the coordinator holds until then (the window is used up). */
  refusedUntil: number;
  refusal: Extract<RateLimitDecision, { allowed: false }> | undefined;
  renewing: Promise<"granted" | "refused" | "failed"> | undefined;
  /** The coordinator's remaining quota of the reported targets, as of the last lease. */
  usage: QuotaUsage[] | undefined;
}

export class LeasedRateLimiter implements RateLimiter {
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly coordinatorFor: LeaseLookup,
    private readonly policy: RateLimitPolicy = getRateLimitPolicy(),
    private readonly now: () => number = () => Date.now(),
    private readonly options: LeaseOptions = {},
    private readonly organizationQuotas?: OrganizationQuotaLookup,
  ) {}

  async check(subject: RateLimitSubject): Promise<RateLimitDecision> {
    const policy = withOrganizationQuotas(
      this.policy,
      subject.organizationId,
      await this.organizationQuotas?.(subject.organizationId),
    );
    const quota = quotaFor(policy, subject.organizationId, subject.target);
    const key = leaseKey(subject.organizationId, subject.clientId, subject.target);
    const lease = this.leaseOf(key);
    // A quota changed at runtime (the directory): calls leased under the old one are given back at once.
    if (lease.quota && (lease.quota.limit !== quota.limit || lease.quota.windowSeconds !== quota.windowSeconds)) {
      lease.left = 0;
      lease.refusedUntil = 0;
      lease.refusal = undefined;
    }
    lease.quota = quota;
    for (;;) {
      const now = this.now();
      // From the look to the take there is no await: concurrent calls of one holder are decided one by one.
      if (now >= lease.windowEndsAt) {
        lease.left = 0;
        lease.taken = 0;
      }
      if (lease.left > 0) {
        lease.left--;
        if (lease.left === 0 && lease.taken >= 2) this.renewAhead(subject, lease, policy);
        return {
          allowed: true,
          limit: quota.limit,
          remaining: this.remainingOf(subject, subject.target, lease.usage) ?? undefined,
          ...(subject.report ? { usage: this.report(subject, lease, policy) } : {}),
        };
      }
      if (lease.refusal && now < lease.refusedUntil)
        return { ...lease.refusal, retryAfterSeconds: Math.max(1, Math.ceil((lease.refusedUntil - now) / 1000)) };
      const outcome = await this.renewing(subject, lease, policy);
      if (outcome === "failed") return this.storeFailure(subject, policy);
      // "granted" or "refused": look again (another waiter may have taken the last leased call).
    }
  }

  /** The lease's renewal in flight, started now if there is none: concurrent callers share one round trip. */
  private renewing(
    subject: RateLimitSubject,
    lease: Lease,
    policy: RateLimitPolicy,
  ): Promise<"granted" | "refused" | "failed"> {
    lease.renewing ??= this.renew(subject, lease, policy).finally(() => {
      lease.renewing = undefined;
    });
    return lease.renewing;
  }

  /** The next lease asked for in the background (keepAlive only): what the next call would ask for, earlier. */
  private renewAhead(subject: RateLimitSubject, lease: Lease, policy: RateLimitPolicy): void {
    const { keepAlive } = this.options;
    if (!keepAlive || lease.renewing) return;
    // renew() settles with an outcome and never rejects; a failure is logged there and the next call asks again.
    keepAlive(this.renewing(subject, lease, policy));
  }

  /** Calls leased and not used yet, over every lease still open (tests and diagnostics). */
  leasedUnused(): number {
    const now = this.now();
    let unused = 0;
    for (const lease of this.leases.values()) if (now < lease.windowEndsAt) unused += lease.left;
    return unused;
  }

  private leaseOf(key: string): Lease {
    let lease = this.leases.get(key);
    if (!lease) {
      // Keys are (organization, client, tool) of the clients this holder served; the bound guards its memory.
      if (this.leases.size >= 5000) this.leases.clear();
      lease = {
        left: 0,
        windowEndsAt: 0,
        taken: 0,
        refusedUntil: 0,
        refusal: undefined,
        renewing: undefined,
        usage: undefined,
      };
      this.leases.set(key, lease);
    }
    return lease;
  }

  private async renew(
    subject: RateLimitSubject,
    lease: Lease,
    policy: RateLimitPolicy,
  ): Promise<"granted" | "refused" | "failed"> {
    const { organizationId, clientId, target } = subject;
    const quota = quotaFor(policy, organizationId, target);
    const report = subject.report?.map((name) => ({ target: name, ...quotaFor(policy, organizationId, name) }));
    let grant: CoordinatorLease;
    try {
      grant = await this.coordinatorFor(organizationId, clientId).lease({
        organizationId,
        clientId,
        target,
        ...quota,
        onStoreFailure: storeFailureModeFor(policy, target),
        want: Math.min(MAX_LEASE, 4 ** Math.min(lease.taken, 3)),
        traceparent: undefined,
        ...(report ? { report } : {}),
      });
    } catch (error) {
      logWarn("rate-limit coordinator unavailable", { organizationId, target, error });
      return "failed";
    }
    if (grant.windowEndsAt === undefined) {
      lease.refusal =
        grant.cause === "store-unavailable"
          ? {
              allowed: false,
              limit: grant.limit,
              windowSeconds: quota.windowSeconds,
              retryAfterSeconds: grant.retryAfterSeconds,
              cause: "store-unavailable",
            }
          : {
              allowed: false,
              limit: grant.limit,
              windowSeconds: quota.windowSeconds,
              retryAfterSeconds: grant.retryAfterSeconds,
              cause: "quota",
            };
      // A store failure is not remembered: the next call asks again.
      lease.refusedUntil = grant.cause === "quota" ? this.now() + grant.retryAfterSeconds * 1000 : 0;
      return grant.cause === "quota" ? "refused" : "failed";
    }
    lease.left += grant.granted;
    lease.windowEndsAt = grant.windowEndsAt;
    lease.taken++;
    lease.refusal = undefined;
    if (report) lease.usage = withQuotas(report, grant.usage);
    return "granted";
  }

  /** The reported targets' remaining quota: the coordinator's as of the last lease, plus what this holder still holds. */
  private report(subject: RateLimitSubject, lease: Lease, policy: RateLimitPolicy): QuotaUsage[] {
    const base =
      lease.usage ??
      withQuotas(
        (subject.report ?? []).map((target) => ({ target, ...quotaFor(policy, subject.organizationId, target) })),
        undefined,
      );
    return base.map((usage) => ({ ...usage, remaining: this.remainingOf(subject, usage.target, base) }));
  }

  private remainingOf(subject: RateLimitSubject, target: string, usage: QuotaUsage[] | undefined): number | null {
    const coordinator = usage?.find((entry) => entry.target === target)?.remaining;
    if (coordinator === null || coordinator === undefined) return null;
    const held = this.leases.get(leaseKey(subject.organizationId, subject.clientId, target));
    return coordinator + (held && this.now() < held.windowEndsAt ? held.left : 0);
  }

  private storeFailure(subject: RateLimitSubject, policy: RateLimitPolicy): RateLimitDecision {
    const quota = quotaFor(policy, subject.organizationId, subject.target);
    if (storeFailureModeFor(policy, subject.target) === "open") {
      return {
        allowed: true,
        limit: quota.limit,
        ...(subject.report
          ? {
              usage: withQuotas(
                subject.report.map((target) => ({ target, ...quotaFor(policy, subject.organizationId, target) })),
                undefined,
              ),
            }
          : {}),
      };
    }
    return {
      allowed: false,
      limit: quota.limit,
      windowSeconds: quota.windowSeconds,
      retryAfterSeconds: STORE_FAILURE_RETRY_SECONDS,
      cause: "store-unavailable",
    };
  }
}

function leaseKey(organizationId: string, clientId: string, target: string): string {
  return JSON.stringify([organizationId, clientId, target]);
}
