import { auditSinkFor } from "../audit/sink";
import type { Env } from "../env";
import { rateLimiterFor } from "../ratelimit/limiter";
import type { PipelineDeps } from "./pipeline";

/** The pipeline's hooks for this deployment: the KV-backed limiter and the stored audit trail. */
export function pipelineDepsFor(env: Env): PipelineDeps {
  return { audit: auditSinkFor(env), rateLimiter: rateLimiterFor(env) };
}
