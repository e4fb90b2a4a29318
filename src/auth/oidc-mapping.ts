/**
 * Which organization and role an OpenID Connect user gets, from their verified claims, the directory's active
 * organizations and the policy's roles. Pure: plain data in, a tagged result out; no I/O, no clock.
 *
 * Organization: the configured claim (OIDC_ORG_CLAIM) matched against `claimValues`, or else the e-mail
 * domain matched against `emailDomains`, but only when the provider does not say the e-mail is unverified.
 * Role: the configured claim (OIDC_ROLE_CLAIM) when it names a known role, else the organization's default.
 * An organization with its own provider (`ownProvider`) is never the answer: its members sign in there only.
 */

export interface OrganizationDirectory {
  readonly organizations: Readonly<
    Record<
      string,
      {
        readonly emailDomains: readonly string[];
        readonly claimValues: readonly string[];
        readonly defaultRole: string;
        /** It signs its members in with its own provider (its `signIn` settings), never with this one. */
        readonly ownProvider?: boolean;
      }
    >
  >;
  readonly roles: Readonly<Record<string, unknown>>;
}

export interface ClaimSettings {
  /** Claim holding the organization (a string or an array of strings); undefined: e-mail domain only. */
  readonly orgClaim?: string;
  /** Claim holding the role (a string or an array of strings); undefined: always the default role. */
  readonly roleClaim?: string;
}

/** What the claims said, for the refusal page and the operator's log. */
export interface MappingFacts {
  orgClaim?: string;
  orgClaimValues: string[];
  email?: string;
  emailDomain?: string;
  emailVerified: boolean | "unspecified";
}

export type OrganizationMapping =
  | {
      ok: true;
      organizationId: string;
      role: string;
      organizationFrom: "claim" | "email-domain";
      roleFrom: "claim" | "default";
    }
  | { ok: false; reason: "no-organization"; facts: MappingFacts }
  | {
      ok: false;
      reason: "own-provider";
      organizationId: string;
      organizationFrom: "claim" | "email-domain";
      facts: MappingFacts;
    }
  | { ok: false; reason: "several-organizations"; organizationIds: string[]; facts: MappingFacts };

/** A claim as a list of strings: a string, or the strings of an array; anything else counts as absent. */
export function claimStrings(value: unknown): string[] {
  if (typeof value === "string") return value.trim() === "" ? [] : [value];
  if (Array.isArray(value))
    return value.filter((item): item is string => typeof item === "string" && item.trim() !== "");
  return [];
}

/** email_verified as the provider sent it; some providers send the strings "true"/"false". */
export function emailVerification(value: unknown): boolean | "unspecified" {
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  return "unspecified";
}

export function emailDomainOf(email: string): string | undefined {
  const at = email.lastIndexOf("@");
  if (at <= 0 || at === email.length - 1) return undefined;
  return email.slice(at + 1).toLowerCase();
}

export function mapOrganization(
  claims: Readonly<Record<string, unknown>>,
  settings: ClaimSettings,
  directory: OrganizationDirectory,
): OrganizationMapping {
  const orgClaimValues = settings.orgClaim ? claimStrings(claims[settings.orgClaim]) : [];
  const email = typeof claims.email === "string" ? claims.email : undefined;
  const emailVerified = emailVerification(claims.email_verified);
  const facts: MappingFacts = {
    ...(settings.orgClaim ? { orgClaim: settings.orgClaim } : {}),
    orgClaimValues,
    ...(email ? { email } : {}),
    ...(email && emailDomainOf(email) ? { emailDomain: emailDomainOf(email) } : {}),
    emailVerified,
  };
  const entries = Object.entries(directory.organizations);

  const byClaim = entries
    .filter(([, org]) => org.claimValues.some((value) => orgClaimValues.includes(value)))
    .map(([id]) => id);
  if (byClaim.length > 1) return { ok: false, reason: "several-organizations", organizationIds: byClaim, facts };
  let organizationId = byClaim[0];
  let organizationFrom: "claim" | "email-domain" = "claim";

  if (organizationId === undefined && facts.emailDomain && emailVerified !== false) {
    const domain = facts.emailDomain;
    const byDomain = entries
      .filter(([, org]) => org.emailDomains.some((d) => d.toLowerCase() === domain))
      .map(([id]) => id);
    if (byDomain.length > 1) return { ok: false, reason: "several-organizations", organizationIds: byDomain, facts };
    organizationId = byDomain[0];
    organizationFrom = "email-domain";
  }
  const organization = organizationId === undefined ? undefined : directory.organizations[organizationId];
  if (organizationId === undefined || !organization) return { ok: false, reason: "no-organization", facts };
  // Its own provider decides who its members are (a person removed there must not come back through this one).
  if (organization.ownProvider) return { ok: false, reason: "own-provider", organizationId, organizationFrom, facts };

  const roleFromClaim = settings.roleClaim
    ? claimStrings(claims[settings.roleClaim]).find((value) => Object.hasOwn(directory.roles, value))
    : undefined;
  return {
    ok: true,
    organizationId,
    role: roleFromClaim ?? organization.defaultRole,
    organizationFrom,
    roleFrom: roleFromClaim ? "claim" : "default",
  };
}

/** A display name from the usual claims, never empty. */
export function displayName(claims: Readonly<Record<string, unknown>>, subject: string): string {
  for (const key of ["name", "preferred_username", "email"]) {
    const value = claims[key];
    if (typeof value === "string" && value.trim() !== "") return value.trim().slice(0, 200);
  }
  return subject.slice(0, 200);
}
