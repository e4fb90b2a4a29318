/**
 * Claims from the UserInfo endpoint (OpenID Connect Core 5.3), for providers that keep the ID token thin
 * when an access token is issued (Okta, oidc-provider by default). Asked only when the ID token lacks a
 * claim the organization mapping needs. ID token claims always win; a UserInfo answer about another
 * subject is refused (Core 5.3.4).
 */
import type { ProviderMetadata } from "./oidc-discovery";
import { OidcFailure } from "./oidc-errors";
import { logWarn } from "../lib/log";

const FETCH_TIMEOUT_MS = 5_000;

/** True when the mapping could use claims the ID token does not have. */
export function needsUserinfo(
  claims: Readonly<Record<string, unknown>>,
  orgClaim: string | undefined,
  roleClaim: string | undefined,
): boolean {
  if (claims.email === undefined) return true;
  if (orgClaim && claims[orgClaim] === undefined) return true;
  return Boolean(roleClaim && claims[roleClaim] === undefined);
}

/**
 * The ID token's claims completed with the UserInfo claims it lacks. If UserInfo cannot be read the ID
 * token's claims are returned alone (the mapping then decides, failing closed if it cannot place the user).
 */
export async function withUserinfoClaims(
  idClaims: Readonly<Record<string, unknown>>,
  subject: string,
  provider: ProviderMetadata,
  accessToken: string | undefined,
): Promise<Record<string, unknown>> {
  if (!provider.userinfo_endpoint || !accessToken) return { ...idClaims };
  let response: Response;
  try {
    response = await fetch(provider.userinfo_endpoint, {
      headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (error) {
    logWarn("oidc userinfo unreachable", { error: error instanceof Error ? error.name : "network error" });
    return { ...idClaims };
  }
  const type = response.headers.get("content-type") ?? "";
  if (response.status !== 200 || !type.includes("application/json")) {
    // Signed or encrypted UserInfo (application/jwt) is not supported: the ID token's claims are used alone.
    await response.body?.cancel();
    logWarn("oidc userinfo not usable", { status: response.status, contentType: type.split(";")[0] });
    return { ...idClaims };
  }
  let userinfo: unknown;
  try {
    userinfo = await response.json();
  } catch {
    return { ...idClaims };
  }
  if (typeof userinfo !== "object" || userinfo === null || Array.isArray(userinfo)) return { ...idClaims };
  const extra = userinfo as Record<string, unknown>;
  if (extra.sub !== subject) {
    throw new OidcFailure(
      "id-token-invalid",
      "The provider's UserInfo answer is about a different user than the ID token. Nobody was signed in.",
    );
  }
  return { ...extra, ...idClaims };
}
