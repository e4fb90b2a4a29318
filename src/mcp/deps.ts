import { waitUntil } from "cloudflare:workers";
import type { AuditOutbox } from "../audit/outbox";
import type { AuditSink } from "../audit/record";
import { auditSinkFor } from "../audit/sink";
import type { Env } from "../env";
import type { RateLimiter } from "../ratelimit/hook";
import { LeasedRateLimiter } from "../ratelimit/leases";
import { directoryQuotas, coordinatorsIn, rateLimiterFor } from "../ratelimit/limiter";
import { telemetryFor } from "../telemetry";
import type { PipelineDeps } from "./pipeline";
import { getCatalog } from "./deployment-catalog";

/**
 * Where the pipeline runs, which decides how a call's audit record is made safe before its answer:
 *  - the 2025-11-25 session Durable Object (sessionPipelineDeps): the record goes into the object's own outbox
 *    before the answer (a local write the output gate holds the answer for) and is drained to the audit store by an
 *    alarm after it (audit/outbox.ts). An alarm, not work left pending: an earlier version saw the full worker suite
 *    stall when the session object left its RPC to the audit store running after the answer; an alarm is an event
 *    of its own, which the runtime runs to completion, retries when it fails and re-runs after an eviction;
 *  - "worker-request" (the 2026-07-28 stateless lane) and "wait" (/chat, the listen hub): a Worker request has no
 *    storage of its own for an outbox, so the call waits until the audit store has the record (or it is logged in
 *    full): nothing of it is left in an isolate's memory after the answer, so an isolate that dies after answering
 *    loses nothing.
 */
export type PipelineHost = "worker-request" | "wait";

/**
 * One `T` per isolate and binding: holders of plain data only (no I/O object is shared between requests), keyed by
 * a namespace binding so they never outlive the deployment they serve.
 */
function perIsolate<T>(holders: WeakMap<object, T>, binding: object, make: () => T): T {
  let holder = holders.get(binding);
  if (!holder) {
    holder = make();
    holders.set(binding, holder);
  }
  return holder;
}

/**
 * Asks the limiter to report, with its decision on a call, the quotas the called tool shows (`reportsQuotaOf`,
 * whoami): read in the same coordinator call right after counting this one, instead of a second call.
 */
function reportingQuotas(limiter: RateLimiter): RateLimiter {
  return {
    check(subject) {
      const report = getCatalog().tools.get(subject.target)?.reportsQuotaOf?.();
      return limiter.check(report ? { ...subject, report } : subject);
    },
  };
}

/**
 * The session lane's hooks: rate-limit leases held by the session object for its lifetime (ratelimit/leases.ts),
 * and the session object's audit outbox. Call once per session object.
 */
export function sessionPipelineDeps(env: Env, outbox: AuditOutbox): PipelineDeps {
  const audit: AuditSink = { record: (record) => outbox.add(record) };
  return {
    audit,
    rateLimiter: reportingQuotas(
      new LeasedRateLimiter(coordinatorsIn(env.RATE_LIMITER), undefined, undefined, {}, directoryQuotas(env)),
    ),
    telemetry: telemetryFor(env),
  };
}

/**
 * The stateless lane's leases, one holder per isolate: a cache of decisions already granted (plain data, no I/O
 * object shared between requests), keyed by the namespace binding so it never outlives the deployment it serves.
 */
const isolateLeases = new WeakMap<object, LeasedRateLimiter>();
function isolateLimiter(env: Env): RateLimiter {
  // The next lease is asked for in the background, kept alive by the request that used up the last one.
  return perIsolate(
    isolateLeases,
    env.RATE_LIMITER,
    () =>
      new LeasedRateLimiter(
        coordinatorsIn(env.RATE_LIMITER),
        undefined,
        undefined,
        { keepAlive: (work) => waitUntil(work) },
        directoryQuotas(env),
      ),
  );
}

/** The pipeline's hooks for this deployment: the KV-backed limiter and the stored audit trail. */
export function pipelineDepsFor(env: Env, host: PipelineHost = "wait"): PipelineDeps {
  const limiter = host === "worker-request" ? isolateLimiter(env) : rateLimiterFor(env);
  const audit = auditSinkFor(env);
  return { audit, rateLimiter: reportingQuotas(limiter), telemetry: telemetryFor(env) };
}
