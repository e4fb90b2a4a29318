/** The pipeline's rate-limit hook. The KV-backed limiter implements it; `unlimited` admits everything. */
export interface RateLimitSubject {
  organizationId: string;
  clientId: string;
  /** Tool name, or a route family such as `rest`. */
  target: string;
  /**
   * Targets whose remaining quota the caller shows (whoami): reported with the decision, from the same
   * coordinator turn (this call included), instead of a second round trip.
   */
  report?: readonly string[];
}

/** Remaining quota of one target; `remaining` and `resetsInSeconds` are null when the counter cannot be read. */
export interface QuotaUsage {
  target: string;
  limit: number;
  windowSeconds: number;
  remaining: number | null;
  resetsInSeconds: number | null;
}

export type RateLimitDecision =
  | { allowed: true; limit?: number; remaining?: number; usage?: QuotaUsage[] }
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
