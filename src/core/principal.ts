/**
 * Who is calling: the first step of every governed operation. The principal comes from the OAuth token (or CI key)
 * the resource server verified on this very request, never from anything the client sends beside it.
 */

/** Who is calling, as established by the OAuth token (or CI key) on this very request. */
export interface Principal {
  organizationId: string;
  userId: string;
  /** OAuth client id, or `ci-key:<id>` for a CI key. */
  clientId: string;
  role: string;
  scopes: readonly string[];
  /** Only for CI keys: the projects this principal may touch (["*"] = every project). Absent = no restriction. */
  projects?: readonly string[];
}

/**
 * What a verified grant says about its holder (the OAuth grant's props, or a CI key's): the core's own shape, so
 * that it names no OAuth library type.
 */
export interface GrantedIdentity {
  organizationId: string;
  userId: string;
  role: string;
  /** Set for CI keys only: the projects the key may touch (["*"] = all of the organization's). */
  projects?: readonly string[];
}

/** The principal of a request the OAuth resource server admitted: its grant's props and the token's scopes and client. */
export function principalFromGrant(
  props: GrantedIdentity,
  auth: { scope: readonly string[]; clientId?: string },
): Principal {
  return {
    organizationId: props.organizationId,
    userId: props.userId,
    clientId: auth.clientId ?? "unknown",
    role: props.role,
    scopes: [...auth.scope],
    ...(props.projects ? { projects: [...props.projects] } : {}),
  };
}

/**
 * `principal` holding only the scopes its role may grant in its organization now (`grantable`): a token issued
 * before an administrator narrowed the role's cap (`roleCaps`) loses the scopes beyond it on every request, whether
 * or not the revocation that follows the change has reached its grant. A CI key (it names its projects) is no role's
 * grant and keeps its scopes.
 */
export function withinRoleCap(principal: Principal, grantable: readonly string[]): Principal {
  if (principal.projects) return principal;
  const allowed = new Set(grantable);
  const scopes = principal.scopes.filter((scope) => allowed.has(scope));
  return scopes.length === principal.scopes.length ? principal : { ...principal, scopes };
}

/** The scopes of `required` that `granted` lacks. */
export function missingScopes(granted: readonly string[], required: readonly string[]): string[] {
  const have = new Set(granted);
  return required.filter((scope) => !have.has(scope));
}
