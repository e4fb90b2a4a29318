/**
 * The organization's upstream as its administrators set it in the directory, for the order tools, /chat and the
 * "test connection" check: read through the isolate cache (no round trip on a warm isolate). Undefined when the
 * organization set none: upstreams.json and the Worker's vars apply, as before the directory.
 */
import type { Env } from "../env";
import type { OrganizationUpstream } from "../graphql/upstream";
import { resolveOrganization } from "./client";

export async function organizationUpstream(
  env: Pick<Env, "DIRECTORY">,
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
