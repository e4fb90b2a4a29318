/**
 * The Worker side of the rate limiter, behind the pipeline's RateLimiter hook and the REST router: it
 * looks up the quota in the policy, asks the (organization, client) coordinator to decide, and applies
 * the policy's `onStoreFailure` when the coordinator itself cannot be reached.
 */
import type { Env } from "../env";
import type { CoordinatorApi, QuotaRequest, TargetUsage } from "./coordinator-rpc";
import { STORE_FAILURE_RETRY_SECONDS } from "./coordinator-core";
import type { QuotaUsage, RateLimitDecision, RateLimiter, RateLimitSubject } from "./hook";
import { coordinatorName } from "./keys";
import {
  getRateLimitPolicy,
  quotaFor,
  storeFailureModeFor,
  withOrganizationQuotas,
  type OrganizationQuotaLookup,
  type RateLimitPolicy,
} from "./policy";
import { resolveOrganization } from "../directory/client";
import { tracedStub } from "../telemetry/stub";
import { logWarn } from "../lib/log";

export type CoordinatorLookup = (organizationId: string, clientId: string) => Pick<CoordinatorApi, "check" | "usage">;

export class CoordinatedRateLimiter implements RateLimiter {
  constructor(
    private readonly coordinatorFor: CoordinatorLookup,
    private readonly policy: RateLimitPolicy = getRateLimitPolicy(),
    private readonly organizationQuotas?: OrganizationQuotaLookup,
  ) {}

  private async policyFor(organizationId: string): Promise<RateLimitPolicy> {
    return withOrganizationQuotas(this.policy, organizationId, await this.organizationQuotas?.(organizationId));
  }

  async check(subject: RateLimitSubject): Promise<RateLimitDecision> {
    const policy = await this.policyFor(subject.organizationId);
    const quota = quotaFor(policy, subject.organizationId, subject.target);
    const onStoreFailure = storeFailureModeFor(policy, subject.target);
    const report = subject.report ? quotasOf(policy, subject.organizationId, subject.report) : undefined;
    try {
      const { organizationId, clientId, target } = subject;
      const decision = await this.coordinatorFor(organizationId, clientId).check({
        organizationId,
        clientId,
        target,
        ...quota,
        onStoreFailure,
        traceparent: undefined,
        ...(report ? { report } : {}),
      });
      if (!decision.allowed || !report) return decision;
      return { ...decision, usage: withQuotas(report, decision.usage) };
    } catch (error) {
      logWarn("rate-limit coordinator unavailable", {
        organizationId: subject.organizationId,
        target: subject.target,
        onStoreFailure,
        error,
      });
      if (onStoreFailure === "open")
        return { allowed: true, limit: quota.limit, ...(report ? { usage: withQuotas(report, undefined) } : {}) };
      return {
        allowed: false,
        limit: quota.limit,
        windowSeconds: quota.windowSeconds,
        retryAfterSeconds: STORE_FAILURE_RETRY_SECONDS,
        cause: "store-unavailable",
      };
    }
  }

  /** Remaining quota per target without counting a call; `remaining` is null when it cannot be read. */
  async usage(
    subject: { organizationId: string; clientId: string },
    targets: readonly string[],
  ): Promise<QuotaUsage[]> {
    const quotas = quotasOf(await this.policyFor(subject.organizationId), subject.organizationId, targets);
    let reports: TargetUsage[] | undefined;
    try {
      reports = await this.coordinatorFor(subject.organizationId, subject.clientId).usage({
        organizationId: subject.organizationId,
        clientId: subject.clientId,
        quotas,
      });
    } catch (error) {
      logWarn("rate-limit coordinator unavailable", { organizationId: subject.organizationId, error });
    }
    return withQuotas(quotas, reports);
  }
}

/** The policy's quotas beside what the coordinator reported; unknown (null) where it reported nothing. */
export function withQuotas(quotas: readonly QuotaRequest[], reports: readonly TargetUsage[] | undefined): QuotaUsage[] {
  return quotas.map((quota, index) => ({
    target: quota.target,
    limit: quota.limit,
    windowSeconds: quota.windowSeconds,
    remaining: reports?.[index]?.remaining ?? null,
    resetsInSeconds: reports?.[index]?.resetsInSeconds ?? null,
  }));
}

/** Coordinators in a Durable Object namespace, one per (organization, client). */
export function coordinatorsIn(
  namespace: Env["RATE_LIMITER"],
): (organizationId: string, clientId: string) => CoordinatorApi {
  return (organizationId, clientId) =>
    tracedStub(
      // biome-ignore lint/plugin: the binding is typed by the RPC the coordinator object offers (src/env.ts), not its class
      namespace.get(namespace.idFromName(coordinatorName(organizationId, clientId))) as unknown as CoordinatorApi,
      "RateLimitCoordinator",
    );
}

function quotasOf(policy: RateLimitPolicy, organizationId: string, targets: readonly string[]): QuotaRequest[] {
  return targets.map((target) => ({ target, ...quotaFor(policy, organizationId, target) }));
}

/**
 * Starts loading a client's counters into its coordinator (one KV listing) while something else is being answered,
 * so that the client's first rate-limit decision is made from memory instead of waiting for KV: the /mcp front does
 * it when a session starts (`initialize`). Never rejects: a failure only means the first decision lists them itself.
 */
export async function prepareCounters(
  namespace: Env["RATE_LIMITER"],
  subject: { organizationId: string; clientId: string },
): Promise<void> {
  const { organizationId, clientId } = subject;
  try {
    await coordinatorsIn(namespace)(organizationId, clientId).prepare({ organizationId, clientId });
  } catch (error) {
    logWarn("rate-limit counters could not be prepared", { organizationId, error });
  }
}

/** An organization's runtime quotas from the directory (through its isolate cache: no round trip when warm). */
export function directoryQuotas(env: Pick<Env, "DIRECTORY_VIEW">): OrganizationQuotaLookup {
  return async (organizationId) => (await resolveOrganization(env, organizationId))?.record.settings.quotas;
}

export function rateLimiterFor(env: Env, policy: RateLimitPolicy = getRateLimitPolicy()): CoordinatedRateLimiter {
  return new CoordinatedRateLimiter(coordinatorsIn(env.RATE_LIMITER), policy, directoryQuotas(env));
}
