/**
 * The rate-limit coordinator: one Durable Object per (organization, client), so every MCP session and
 * every REST call of one client reaches the same single-threaded instance, wherever it runs. It holds
 * the counters in memory (exact decisions) and persists them to RATE_LIMIT_KV write-behind, at most once
 * per second per key; after a restart or eviction it restores them from KV. See coordinator-core.ts.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { WindowCoordinator } from "./coordinator-core";
import type { RateLimitDecision } from "./hook";
import { counterKey } from "./keys";
import { telemetryFor } from "../telemetry";
import type {
  CoordinatorCheckRequest,
  CoordinatorLease,
  CoordinatorLeaseRequest,
  CoordinatorPrepareRequest,
  CoordinatorRpc,
  CoordinatorUsageRequest,
  QuotaRequest,
  TargetUsage,
} from "./coordinator-rpc";

function assertQuota(quota: QuotaRequest): void {
  if (
    !Number.isInteger(quota.limit) ||
    quota.limit < 1 ||
    !Number.isInteger(quota.windowSeconds) ||
    quota.windowSeconds < 1
  ) {
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

  /** One listing of this client's counters before the first decision (coordinator-core.ts loadAll). */
  private async loaded(organizationId: string, clientId: string): Promise<void> {
    await this.counters.loadAll(await counterKey(organizationId, clientId, ""));
  }

  /** Runs `work` as this object's span of the caller's trace, when the caller is traced and telemetry is on. */
  private traced<T>(method: string, traceparent: string | undefined, work: () => Promise<T>): Promise<T> {
    const telemetry = traceparent ? telemetryFor(this.env) : undefined;
    if (!telemetry) return work();
    return telemetry.span(
      `RateLimitCoordinator.${method}`,
      "server",
      { "rpc.system": "cloudflare.durable_object", "rpc.service": "RateLimitCoordinator", "rpc.method": method },
      work,
      traceparent,
    );
  }

  /** Lists the client's counters now, before its first lease or check asks for them (no-op once they are listed). */
  prepare(request: CoordinatorPrepareRequest): Promise<void> {
    return this.loaded(request.organizationId, request.clientId);
  }

  lease(request: CoordinatorLeaseRequest): Promise<CoordinatorLease> {
    return this.traced("lease", request.traceparent, () => this.leaseNow(request));
  }

  private async leaseNow(request: CoordinatorLeaseRequest): Promise<CoordinatorLease> {
    assertQuota(request);
    if (!Number.isInteger(request.want) || request.want < 1) throw new TypeError("want must be a positive integer");
    await this.loaded(request.organizationId, request.clientId);
    const key = await this.keyOf(request.organizationId, request.clientId, request.target);
    const grant = await this.counters.lease(
      key,
      { limit: request.limit, windowSeconds: request.windowSeconds },
      request.want,
      request.onStoreFailure,
    );
    if (grant.windowEndsAt === undefined || !request.report?.length) return grant;
    return {
      ...grant,
      usage: await this.usage({
        organizationId: request.organizationId,
        clientId: request.clientId,
        quotas: request.report,
      }),
    };
  }

  check(request: CoordinatorCheckRequest): Promise<RateLimitDecision> {
    return this.traced("check", request.traceparent, () => this.checkNow(request));
  }

  private async checkNow(request: CoordinatorCheckRequest): Promise<RateLimitDecision> {
    assertQuota(request);
    await this.loaded(request.organizationId, request.clientId);
    const key = await this.keyOf(request.organizationId, request.clientId, request.target);
    const decision = await this.counters.check(
      key,
      { limit: request.limit, windowSeconds: request.windowSeconds },
      request.onStoreFailure,
    );
    if (!decision.allowed || !request.report?.length) return decision;
    // Read after the decision, so the report counts this call; it is a snapshot, as usage() is.
    const reports = await this.usage({
      organizationId: request.organizationId,
      clientId: request.clientId,
      quotas: request.report,
    });
    return {
      ...decision,
      usage: request.report.map((quota, index) => ({
        ...quota,
        remaining: reports[index]?.remaining ?? null,
        resetsInSeconds: reports[index]?.resetsInSeconds ?? null,
      })),
    };
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
    await this.loaded(request.organizationId, request.clientId);
    return Promise.all(
      request.quotas.map(async (quota) => {
        assertQuota(quota);
        const key = await this.keyOf(request.organizationId, request.clientId, quota.target);
        return {
          target: quota.target,
          ...(await this.counters.usage(key, { limit: quota.limit, windowSeconds: quota.windowSeconds })),
        };
      }),
    );
  }
}
