/**
 * The REST resource server's check of a presented CI key (format and storage in src/oauth/cikeys.ts): the
 * OAuth side of CI keys, so that the contracts folder does not import the provider's types.
 */
import { resolveOrganization } from "../directory/client";
import type { OAuthResourceTokenValidation } from "@cloudflare/workers-oauth-provider";
import { CI_KEY_CLIENT_PREFIX, parseCiKey } from "./cikeys";
import { keyForValidation } from "../contracts/services/keys";
import { sha256Digest } from "../lib/sha256";
import type { Env } from "../env";
import type { GrantProps } from "./grant-props";

function sameHash(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  return left.byteLength === right.byteLength && crypto.subtle.timingSafeEqual(left, right);
}

/**
 * Validates a CI key for the REST resource. Returns what the resource server needs (props, audience, scopes,
 * client id `ci-key:<id>`), or null for anything not valid now: malformed, unknown organization or key,
 * wrong secret, revoked, expired.
 */
export async function validateCiKey(
  env: Env,
  token: string,
  apiResource: string,
  now = Date.now(),
): Promise<OAuthResourceTokenValidation<GrantProps> | null> {
  const parsed = parseCiKey(token);
  // The organization must be in the directory; whether it may be served now is the organization gate's to say.
  if (!parsed || !(await resolveOrganization(env, parsed.organizationId))) return null;
  const stored = await keyForValidation(env, parsed.organizationId, parsed.id);
  if (!stored) return null;
  if (!sameHash(stored.secretHash, await sha256Digest(new TextEncoder().encode(token)))) return null;
  const { key } = stored;
  if (key.revokedAt) return null;
  const expiresAt = key.expiresAt ? Date.parse(key.expiresAt) : undefined;
  if (expiresAt !== undefined && expiresAt <= now) return null;
  const clientId = `${CI_KEY_CLIENT_PREFIX}${key.id}`;
  return {
    props: {
      organizationId: parsed.organizationId,
      userId: clientId,
      role: "ci",
      name: key.name,
      projects: [...key.projects],
    },
    audience: apiResource,
    scope: [...key.scopes],
    clientId,
    userId: clientId,
    ...(expiresAt !== undefined ? { expiresAt: Math.floor(expiresAt / 1000) } : {}),
  };
}
