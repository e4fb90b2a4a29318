/**
 * The rate-limit coordinator: one Durable Object per (organization, client), so every MCP session and
 * every REST call of one client reaches the same single-threaded instance, wherever it runs. It holds
 * the counters in memory (exact decisions) and persists them to RATE_LIMIT_KV write-behind, at most once
 * per second per key; after a restart or eviction it restores them from KV. See coordinator-core.ts.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { WindowCoordinator, type StoreFailureMode } from "./coordinator-core";
import type { RateLimitDecision } from "./hook";
import { counterKey } from "./keys";
import type { CoordinatorCheckRequest, CoordinatorRpc, CoordinatorUsageRequest, QuotaRequest, TargetUsage } from "./coordinator-rpc";

function assertQuota(quota: QuotaRequest): void {
  if (!Number.isInteger(quota.limit) || quota.limit < 1 || !Number.isInteger(quota.windowSeconds) || quota.windowSeconds < 1) {
    throw new TypeError(`invalid quota for ${quota.target}: limit and windowSeconds must be positive integers`);
  }
}

export class RateLimitCoordinator extends DurableObject<Env> implements CoordinatorRpc {
  private readonly counters: WindowCoordinator;
  /** Counter keys by target: this object serves one (organization, client), so it holds one per tool at most. */
  private readonly keys = new Map<string, Promise<string>>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.counters = new WindowCoordinator({ kv: env.RATE_LIMIT_KV });
  }

  async check(request: CoordinatorCheckRequest): Promise<RateLimitDecision> {
    assertQuota(request);
    const key = await this.keyOf(request.organizationId, request.clientId, request.target);
    const decision = await this.counters.check(key, { limit: request.limit, windowSeconds: request.windowSeconds }, request.onStoreFailure);
    if (!decision.allowed || !request.report?.length) return decision;
    // Read after the decision, so the report counts this call; it is a snapshot, as usage() is.
    const reports = await this.usage({ organizationId: request.organizationId, clientId: request.clientId, quotas: request.report });
    return { ...decision, usage: request.report.map((quota, index) => ({ ...quota, remaining: reports[index]?.remaining ?? null, resetsInSeconds: reports[index]?.resetsInSeconds ?? null })) };
  }

  private keyOf(organizationId: string, clientId: string, target: string): Promise<string> {
    const name = JSON.stringify([organizationId, clientId, target]);
    let key = this.keys.get(name);
    if (!key) {
      // Targets come from the catalog and the REST family; the bound only guards against a misuse.
      if (this.keys.size >= 1000) this.keys.clear();
      key = counterKey(organizationId, clientId, target);
      this.keys.set(name, key);
    }
    return key;
  }

  async usage(request: CoordinatorUsageRequest): Promise<TargetUsage[]> {
    return Promise.all(
      request.quotas.map(async (quota) => {
        assertQuota(quota);
        const key = await this.keyOf(request.organizationId, request.clientId, quota.target);
        return { target: quota.target, ...(await this.counters.usage(key, { limit: quota.limit, windowSeconds: quota.windowSeconds })) };
      }),
    );
  }
}
