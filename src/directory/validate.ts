/**
 * The checks on an organization's settings that a schema cannot make alone: roles and scopes that must exist in
 * the platform's catalogue, caps the operator set, and addresses an upstream or identity provider may not have.
 * Each refusal is a SettingsError naming the field and the fix.
 */
import { organizationConformanceProblem } from "../engine";
import type { Policy } from "../policy/load";
import type { OrganizationSettings, PlatformCaps } from "./settings";
import { SettingsError } from "./settings";

/** Development: this deployment's public URL is on loopback (`npm start`, the tests); never a deployed Worker. */
export function isDevelopmentOrigin(publicUrl: string): boolean {
  try {
    return isLoopbackHost(new URL(publicUrl).hostname);
  } catch {
    return false;
  }
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Literal addresses a deployed Worker must not be pointed at: private, link-local, loopback, unspecified. */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (
    isLoopbackHost(host) ||
    host === "0.0.0.0" ||
    host === "::" ||
    host.endsWith(".internal") ||
    host.endsWith(".local")
  )
    return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 10 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (host.includes(":")) return /^(fc|fd|fe8|fe9|fea|feb)/.test(host) || host.startsWith("::ffff:");
  return false;
}

/**
 * An outside URL the Worker will call (upstream, identity provider): https with a public host; plain http or a
 * private host only in development. Returns the problem, or undefined when acceptable.
 */
export function outboundUrlProblem(value: string, development: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "expected an absolute URL";
  }
  if (url.username || url.password) return "must not carry a user name or password: use the credential setting";
  if (development && isLoopbackHost(url.hostname) && (url.protocol === "http:" || url.protocol === "https:"))
    return undefined;
  if (url.protocol !== "https:") return "must be an https URL (plain http only on localhost in development)";
  if (isPrivateHost(url.hostname))
    return "must be a public address: private, link-local and loopback addresses are refused outside development";
  return undefined;
}

const perMinute = (quota: { limit: number; windowSeconds: number }) => (quota.limit * 60) / quota.windowSeconds;

/** Throws SettingsError for the first setting outside the platform's catalogue or caps. */
/** What the data policy check needs of the orders schema: the platform's masked fields and each field's type. */
export interface DataPolicyFloor {
  floor: ReadonlySet<string>;
  /** The named type of a field's leaf (`String`, `ID`, `Float`, an enum...), or undefined when there is no such field. */
  leafType(coordinate: string): string | undefined;
}

export function checkSettings(
  settings: OrganizationSettings,
  policy: Pick<Policy, "roles" | "scopeNames">,
  caps: PlatformCaps,
  development: boolean,
  data?: DataPolicyFloor,
): void {
  const roles = Object.keys(policy.roles);
  if (!roles.includes(settings.defaultRole))
    throw new SettingsError("defaultRole", `unknown role "${settings.defaultRole}"; roles: ${roles.join(", ")}`);
  for (const [role, scopes] of Object.entries(settings.roleCaps ?? {})) {
    const platform = policy.roles[role];
    if (!platform) throw new SettingsError(`roleCaps.${role}`, `unknown role "${role}"; roles: ${roles.join(", ")}`);
    scopes.forEach((scope, index) => {
      if (!policy.scopeNames.includes(scope))
        throw new SettingsError(
          `roleCaps.${role}.${index}`,
          `unknown scope "${scope}"; known scopes: ${policy.scopeNames.join(", ")}`,
        );
      if (!platform.grantable.includes(scope))
        throw new SettingsError(
          `roleCaps.${role}.${index}`,
          `the platform lets role "${role}" grant at most ${platform.grantable.join(", ")}; "${scope}" is beyond it`,
        );
    });
  }
  if (settings.signIn) {
    const problem = outboundUrlProblem(settings.signIn.issuer, development);
    if (problem) throw new SettingsError("signIn.issuer", problem);
    if (!settings.signIn.scopes.split(/\s+/).includes("openid"))
      throw new SettingsError("signIn.scopes", "must include openid");
  }
  if (settings.upstream) {
    const problem = outboundUrlProblem(settings.upstream.endpoint, development);
    if (problem) throw new SettingsError("upstream.endpoint", problem);
  }
  const quotas = settings.quotas;
  const quotaEntries: Array<[string, { limit: number; windowSeconds: number } | undefined]> = [
    ["quotas.default", quotas?.default],
    ["quotas.rest", quotas?.rest],
    ...Object.entries(quotas?.tools ?? {}).map(([tool, quota]): [string, typeof quota] => [
      `quotas.tools.${tool}`,
      quota,
    ]),
  ];
  for (const [field, quota] of quotaEntries) {
    if (quota && perMinute(quota) > caps.maxCallsPerMinute)
      throw new SettingsError(
        field,
        `${quota.limit} calls per ${quota.windowSeconds} s is more than the platform's cap of ${caps.maxCallsPerMinute} calls per minute: lower the limit or lengthen the window`,
      );
  }
  for (const [coordinate, rule] of Object.entries(settings.dataPolicy?.sensitiveFields ?? {})) {
    const field = `dataPolicy.sensitiveFields.${coordinate}`;
    if (data?.floor.has(coordinate))
      throw new SettingsError(
        field,
        "the platform's data policy masks this field already, with its own unmask scope; an organization may add fields, never change the floor's",
      );
    const type = data?.leafType(coordinate);
    if (data && type === undefined)
      throw new SettingsError(field, "no such field in the orders schema (policies/graphql/schema.graphql)");
    if (data && type !== "String" && type !== "ID")
      throw new SettingsError(
        field,
        `only String and ID fields can be masked (the mask is text); this field is ${type}`,
      );
    if (!policy.scopeNames.includes(rule.unmaskScope))
      throw new SettingsError(
        `${field}.unmaskScope`,
        `unknown scope "${rule.unmaskScope}"; known scopes: ${policy.scopeNames.join(", ")}`,
      );
  }
  const conformance = settings.conformance && organizationConformanceProblem(settings.conformance);
  if (conformance) throw new SettingsError(`conformance.${conformance.field}`, conformance.problem);
  if (settings.auditRetentionDays !== undefined && settings.auditRetentionDays > caps.maxAuditRetentionDays)
    throw new SettingsError(
      "auditRetentionDays",
      `at most ${caps.maxAuditRetentionDays} days on this deployment (the operator's cap)`,
    );
  const retention = settings.retention;
  const longest = [
    ["retention.snapshotDays", retention?.snapshotDays] as const,
    ...Object.entries(retention?.projects ?? {}).map(
      ([project, own]) => [`retention.projects.${project}.snapshotDays`, own.snapshotDays] as const,
    ),
  ];
  for (const [field, days] of longest)
    if (days !== undefined && days > caps.maxSnapshotRetentionDays)
      throw new SettingsError(
        field,
        `at most ${caps.maxSnapshotRetentionDays} days on this deployment (the operator's cap)`,
      );
}
