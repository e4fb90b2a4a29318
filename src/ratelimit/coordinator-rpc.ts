/**
 * What a rate-limit coordinator (the RateLimitCoordinator Durable Object, coordinator.ts) offers over RPC, and the
 * values it takes and answers. Env types the RATE_LIMITER binding by CoordinatorRpc, so no caller imports the class.
 */
import type { LeaseGrant, StoreFailureMode } from "./coordinator-core";
import type { RateLimitDecision } from "./hook";

export interface QuotaRequest {
  target: string;
  limit: number;
  windowSeconds: number;
}

export interface CoordinatorCheckRequest extends QuotaRequest {
  /** W3C traceparent of the caller's span (filled in by telemetry/stub.ts); the coordinator's spans continue it. */
  traceparent?: string | undefined;
  organizationId: string;
  clientId: string;
  onStoreFailure: StoreFailureMode;
  /** Quotas whose remaining calls to report with an admitted decision (after counting it). */
  report?: QuotaRequest[];
}

export interface CoordinatorLeaseRequest extends CoordinatorCheckRequest {
  /** Calls the holder asks for; the coordinator grants at most what the window has left (leases.ts). */
  want: number;
}

/** A lease, and (when asked with `report`) the remaining quota of those targets right after granting it. */
export type CoordinatorLease = LeaseGrant & { usage?: TargetUsage[] };

export interface CoordinatorUsageRequest {
  organizationId: string;
  clientId: string;
  quotas: QuotaRequest[];
}

/** A client whose counters to load before its first decision (prepare). */
export interface CoordinatorPrepareRequest {
  organizationId: string;
  clientId: string;
}

export interface TargetUsage {
  target: string;
  remaining: number | null;
  resetsInSeconds: number | null;
}

/** What the Worker side needs from a coordinator (the Durable Object stub, or a stand-in in tests). */
export interface CoordinatorApi {
  check(request: CoordinatorCheckRequest): Promise<RateLimitDecision>;
  usage(request: CoordinatorUsageRequest): Promise<TargetUsage[]>;
  lease(request: CoordinatorLeaseRequest): Promise<CoordinatorLease>;
  /** Loads the client's counters from KV (one listing) now, so that its first decision is made from memory. */
  prepare(request: CoordinatorPrepareRequest): Promise<void>;
}

/** The coordinator's RPC methods, as the RATE_LIMITER binding offers them. */
export interface CoordinatorRpc extends CoordinatorApi, Rpc.DurableObjectBranded {}

// The Worker's binding of this object, typed by its RPC: declared here, beside the RPC, so src/env.ts imports
// nothing from the rooms above it.
declare module "../env" {
  interface Env {
    /** Rate-limit coordinators, one per (organization, client). */
    RATE_LIMITER: DurableObjectNamespace<CoordinatorRpc>;
  }
}
