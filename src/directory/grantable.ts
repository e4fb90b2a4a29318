/** What a role may grant in one organization: the platform's role (policies/organizations.json) narrowed by the organization's cap. */
import type { Env } from "../env";
import { getPolicy, grantableScopes } from "../policy/load";
import { resolveOrganization } from "./client";
import type { OrganizationSettings } from "./settings";

export function organizationGrantable(settings: OrganizationSettings | undefined, role: string): string[] {
  const platform = grantableScopes(getPolicy(), role);
  const cap = settings?.roleCaps?.[role];
  return cap ? platform.filter((scope) => cap.includes(scope)) : platform;
}

/** What `role` may grant in the organization as its settings are now (the isolate's directory cache: no round trip). */
export async function currentlyGrantable(
  env: Pick<Env, "DIRECTORY_VIEW">,
  organizationId: string,
  role: string,
): Promise<string[]> {
  return organizationGrantable((await resolveOrganization(env, organizationId))?.record.settings, role);
}
