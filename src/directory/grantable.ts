/** What a role may grant in one organization: the platform's role (policies/organizations.json) narrowed by the organization's cap. */
import { getPolicy, grantableScopes } from "../policy/load";
import type { OrganizationSettings } from "./settings";

export function organizationGrantable(settings: OrganizationSettings | undefined, role: string): string[] {
  const platform = grantableScopes(getPolicy(), role);
  const cap = settings?.roleCaps?.[role];
  return cap ? platform.filter((scope) => cap.includes(scope)) : platform;
}
