/**
 * The organization's upstream and extra masked fields as its administrators set them in the directory, for the order tools, /chat and the
 * "test connection" check: read through the isolate cache (no round trip on a warm isolate). Undefined when the
 * organization set none: upstreams.json and the Worker's vars apply, as before the directory.
 */
import type { Env } from "../env";
import type { OrganizationUpstream } from "./upstream";
import { resolveOrganization } from "../directory/client";

export async function organizationUpstream(
  env: Pick<Env, "DIRECTORY_VIEW">,
  organizationId: string,
): Promise<OrganizationUpstream | undefined> {
  const resolved = await resolveOrganization(env, organizationId);
  const upstream = resolved?.record.settings.upstream;
  if (!upstream) return undefined;
  return {
    endpoint: upstream.endpoint,
    credentialHeader: upstream.credentialHeader,
    ...(upstream.credentialScheme ? { credentialScheme: upstream.credentialScheme } : {}),
    ...(upstream.organizationHeader ? { organizationHeader: upstream.organizationHeader } : {}),
    ...(resolved?.upstreamCredential ? { credential: resolved.upstreamCredential } : {}),
  };
}

/** The fields the organization masks beyond the platform's data policy: coordinate -> the scope that unmasks it. */
export async function organizationMasking(
  env: Pick<Env, "DIRECTORY_VIEW">,
  organizationId: string,
): Promise<Record<string, string> | undefined> {
  const fields = (await resolveOrganization(env, organizationId))?.record.settings.dataPolicy?.sensitiveFields;
  if (!fields || Object.keys(fields).length === 0) return undefined;
  return Object.fromEntries(Object.entries(fields).map(([coordinate, rule]) => [coordinate, rule.unmaskScope]));
}
