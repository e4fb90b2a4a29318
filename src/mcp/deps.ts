import { waitUntil } from "cloudflare:workers";
import { auditSinkFor, type AfterAnswer } from "../audit/sink";
import type { Env } from "../env";
import type { RateLimiter } from "../ratelimit/hook";
import { rateLimiterFor } from "../ratelimit/limiter";
import type { PipelineDeps } from "./pipeline";
import { getCatalog } from "./registry";

/**
 * Where the pipeline runs, which decides whether a call waits for its audit record to be stored:
 *  - "worker-request": the 2026-07-28 stateless lane, in the Worker's own request: the write is kept alive with
 *    that request's waitUntil (cloudflare:workers), since the request's work is cancelled once it has answered;
 *  - "wait": the call waits for the store: the 2025-11-25 session Durable Object, /chat, the listen hub. The session
 *    object waits on purpose: leaving its write pending after the answer (a Durable Object keeps running such work)
 *    made the worker test suite stall (the full suite hung twice with it and passed without it, same tree), and
 *    bench:mcp measured no throughput gain from it on a quiet machine (BENCHMARKS.md, notes on bench:mcp).
 * In every case the record is built and sent before the answer, and a failed write logs the full record.
 */
export type PipelineHost = "worker-request" | "wait";

const AFTER_ANSWER: Record<PipelineHost, AfterAnswer | undefined> = {
  "worker-request": (write) => waitUntil(write),
  wait: undefined,
};

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

/** The pipeline's hooks for this deployment: the KV-backed limiter and the stored audit trail. */
export function pipelineDepsFor(env: Env, host: PipelineHost = "wait"): PipelineDeps {
  return { audit: auditSinkFor(env, AFTER_ANSWER[host]), rateLimiter: reportingQuotas(rateLimiterFor(env)) };
}
