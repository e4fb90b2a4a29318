/**
 * Which tools a caller's tools/list shows. A tool whose scopes the caller's role can never grant
 * (policies/organizations.json, `roles.<role>.grantable`, narrowed by the organization's `roleCaps`) only leads to a
 * consent page and then a 403, so it is
 * left out; `listToolsBeyondRole: true` in the same file lists every tool, as before. Tools the role could grant
 * but the token lacks stay listed: step-up gets them. Pure (no I/O): both MCP lanes call it, and tools/call is
 * unchanged (a hidden tool called by name is refused by its scope check as before).
 */
import type { Policy } from "../policy/load";

export interface ToolVisibilityPolicy {
  readonly roles: Policy["roles"];
  readonly listToolsBeyondRole: boolean;
}

/**
 * The tools of `tools` to list for a caller with `role`, in their order. `grantable`: what the role may grant in the
 * caller's organization (the platform's role narrowed by the organization's `roleCaps`); the platform's role when
 * absent.
 */
export function toolsListableFor<T extends { readonly requiredScopes: readonly string[] }>(
  tools: Iterable<T>,
  role: string,
  policy: ToolVisibilityPolicy,
  grantable?: readonly string[],
): T[] {
  const all = [...tools];
  if (policy.listToolsBeyondRole) return all;
  const allowed = new Set(grantable ?? (Object.hasOwn(policy.roles, role) ? policy.roles[role]!.grantable : []));
  return all.filter((tool) => tool.requiredScopes.every((scope) => allowed.has(scope)));
}
