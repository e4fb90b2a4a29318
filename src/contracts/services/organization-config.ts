/**
 * The conformance configuration one organization's verdicts use: the platform's policy files with the organization's
 * own conformance policy from the directory laid over them (read through the isolate cache).
 */
import { resolveOrganization } from "../../directory/client";
import { getConformanceConfig, withOrganizationConformance, type ConformanceConfig } from "../../engine";
import type { Env } from "../../env";

export async function conformanceConfigFor(
  env: Pick<Env, "DIRECTORY_VIEW">,
  organizationId: string,
): Promise<ConformanceConfig> {
  const policy = (await resolveOrganization(env, organizationId))?.record.settings.conformance;
  return withOrganizationConformance(getConformanceConfig(), organizationId, policy);
}
