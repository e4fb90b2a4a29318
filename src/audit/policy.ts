/** policies/audit.json: how long audit records are kept, validated at load. */
import { z } from "zod";
import { policyErrorFromZod } from "../policy/errors";
import { bundledPolicyFiles, type PolicyFiles } from "../policy/files";

const retentionDays = z
  .number()
  .int()
  .min(1)
  .max(3650)
  .describe("Days an audit record is kept before cleanup deletes it");

export const auditFileSchema = z.object({
  $comment: z.string().optional(),
  retentionDays,
  organizations: z.record(z.string(), z.object({ retentionDays })).default({}),
});

export type AuditPolicy = z.infer<typeof auditFileSchema>;

export function loadAuditPolicy(files: PolicyFiles): AuditPolicy {
  const result = auditFileSchema.safeParse(files["audit.json"]);
  if (!result.success) throw policyErrorFromZod("audit.json", result.error);
  return result.data;
}

let cached: AuditPolicy | undefined;
export function getAuditPolicy(): AuditPolicy {
  cached ??= loadAuditPolicy(bundledPolicyFiles);
  return cached;
}

export function retentionMsFor(policy: AuditPolicy, organizationId: string): number {
  const days = policy.organizations[organizationId]?.retentionDays ?? policy.retentionDays;
  return days * 24 * 60 * 60 * 1000;
}
