/** The pipeline's rate-limit hook. The KV-backed limiter implements it; `unlimited` admits everything. */
export interface RateLimitSubject {
  organizationId: string;
  clientId: string;
  /** Tool name, or a route family such as `rest`. */
  target: string;
}

export type RateLimitDecision =
  | { allowed: true; limit?: number; remaining?: number }
  | {
      allowed: false;
      limit: number;
      windowSeconds: number;
      retryAfterSeconds: number;
      /** Why: the quota is used up (default), or the counter store failed and policy says fail closed. */
      cause?: "quota" | "store-unavailable";
    };

export interface RateLimiter {
  check(subject: RateLimitSubject): Promise<RateLimitDecision>;
}

export const unlimited: RateLimiter = {
  async check() {
    return { allowed: true };
  },
};
