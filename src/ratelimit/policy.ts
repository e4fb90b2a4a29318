/** policies/rate-limits.json: quotas per organization, client and tool, validated at load. */
import { z } from "zod";
import { policyErrorFromZod } from "../policy/errors";
import { bundledPolicyFiles, type PolicyFiles } from "../policy/files";

const quota = z.object({
  limit: z.number().int().positive().describe("Calls admitted per window"),
  windowSeconds: z.number().int().min(1).max(86_400).describe("Window length in seconds"),
});

export const rateLimitFileSchema = z.object({
  $comment: z.string().optional(),
  default: quota,
  tools: z.record(z.string(), quota).default({}),
  organizations: z
    .record(
      z.string(),
      z.object({ default: quota.optional(), tools: z.record(z.string(), quota).default({}), rest: quota.optional() }),
    )
    .default({}),
  rest: quota,
  onStoreFailure: z.object({ tools: z.enum(["open", "closed"]), rest: z.enum(["open", "closed"]) }),
});

export type Quota = z.infer<typeof quota>;
export type RateLimitPolicy = z.infer<typeof rateLimitFileSchema>;

export function loadRateLimitPolicy(files: PolicyFiles): RateLimitPolicy {
  const result = rateLimitFileSchema.safeParse(files["rate-limits.json"]);
  if (!result.success) throw policyErrorFromZod("rate-limits.json", result.error);
  return result.data;
}

let cached: RateLimitPolicy | undefined;
export function getRateLimitPolicy(): RateLimitPolicy {
  cached ??= loadRateLimitPolicy(bundledPolicyFiles);
  return cached;
}

/** An organization's quotas as its administrators set them in the directory (src/directory/settings.ts). */
export interface OrganizationQuotas {
  default?: Quota;
  tools?: Record<string, Quota>;
  rest?: Quota;
}

/**
 * The policy with one organization's runtime quotas laid over the file's: a quota set in the directory wins over
 * the same quota in rate-limits.json; what it does not set keeps the file's.
 */
export function withOrganizationQuotas(
  policy: RateLimitPolicy,
  organizationId: string,
  quotas: OrganizationQuotas | undefined,
): RateLimitPolicy {
  if (!quotas) return policy;
  const file = policy.organizations[organizationId];
  const merged: RateLimitPolicy["organizations"][string] = {
    tools: { ...(file?.tools ?? {}), ...(quotas.tools ?? {}) },
  };
  const fallback = quotas.default ?? file?.default;
  if (fallback) merged.default = fallback;
  const rest = quotas.rest ?? file?.rest;
  if (rest) merged.rest = rest;
  return { ...policy, organizations: { ...policy.organizations, [organizationId]: merged } };
}

/** Where a limiter finds an organization's runtime quotas (the directory, through its isolate cache). */
export type OrganizationQuotaLookup = (organizationId: string) => Promise<OrganizationQuotas | undefined>;

/** The quota that applies to one organization and tool (`target` "rest" for the REST API). */
export function quotaFor(policy: RateLimitPolicy, organizationId: string, target: string): Quota {
  const org = policy.organizations[organizationId];
  if (target === "rest") return org?.rest ?? policy.rest;
  return org?.tools[target] ?? policy.tools[target] ?? org?.default ?? policy.default;
}

/** What the limiter does when its counter store fails, for a tool or for the REST API (`target` "rest"). */
export function storeFailureModeFor(policy: RateLimitPolicy, target: string): "open" | "closed" {
  return target === "rest" ? policy.onStoreFailure.rest : policy.onStoreFailure.tools;
}
