/**
 * ID token validation (OpenID Connect Core 3.1.3.7) with `jose`: signature against the provider's JWKS,
 * an asymmetric algorithm, issuer, audience (our client id, and azp when present), expiry and issue time,
 * and the nonce this browser's sign-in attempt generated.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from "jose";
import type { ProviderSettingNames } from "./oidc-config";
import { OidcFailure } from "./oidc-errors";

/**
 * The longest subject, URL-encoded, that fits in every OAUTH_KV key naming a member's grants (512 bytes each) whatever
 * the organization: the longest is the library's token key, `token:<organization>--<subject>:<grant>:<token hash>`.
 */
export const MAX_ENCODED_SUBJECT = 350;

/** Asymmetric signatures only: a symmetric (HS*) or unsigned token could be minted by anyone holding the secret. */
export const ALLOWED_ID_TOKEN_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];
/** Allowed clock difference between Arbiter and the provider. */
export const CLOCK_TOLERANCE_SECONDS = 60;

export interface IdTokenExpectations {
  issuer: string;
  clientId: string;
  nonce: string;
  jwksUri: string;
  /** Where issuer and client id are set, for messages. */
  names: ProviderSettingNames;
}

export interface VerifiedIdToken {
  subject: string;
  claims: JWTPayload & Record<string, unknown>;
}

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** One key set per JWKS URL and isolate: jose caches the keys and refetches on an unknown `kid`. */
function keySet(jwksUri: string): ReturnType<typeof createRemoteJWKSet> {
  let set = keySets.get(jwksUri);
  if (!set) {
    set = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: 5_000, cooldownDuration: 30_000 });
    keySets.set(jwksUri, set);
  }
  return set;
}

const refused = (why: string) => new OidcFailure("id-token-invalid", `The ID token ${why}. Nobody was signed in.`);

/** Translates a jose error into what failed, in words. */
function describeJoseError(error: unknown, names: ProviderSettingNames): OidcFailure {
  if (error instanceof errors.JWTExpired) return refused("has expired");
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case "iss":
        return refused(`was issued by a different issuer than ${names.issuer}`);
      case "aud":
        return refused(`was issued for a different client (its audience is not ${names.clientId})`);
      case "iat":
      case "nbf":
        return refused("is not valid yet (issued in the future)");
      default:
        return refused(`has an invalid or missing "${error.claim}" claim`);
    }
  }
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return refused("signature does not match the provider's published keys");
  if (error instanceof errors.JWKSNoMatchingKey) return refused("is signed with a key the provider does not publish");
  if (error instanceof errors.JOSEAlgNotAllowed)
    return refused(
      `uses a signing algorithm Arbiter does not accept (allowed: ${ALLOWED_ID_TOKEN_ALGORITHMS.join(", ")})`,
    );
  if (error instanceof errors.JWKSTimeout)
    return new OidcFailure(
      "provider-unreachable",
      "The provider's signing keys (jwks_uri) could not be fetched in time. Try again in a moment.",
    );
  if (error instanceof errors.JWKSInvalid || error instanceof errors.JWKInvalid)
    return new OidcFailure(
      "provider-invalid",
      "The provider's signing keys (jwks_uri) are not a valid JSON Web Key Set.",
    );
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) return refused("is malformed");
  if (error instanceof errors.JOSEError) return refused(`could not be verified (${error.code})`);
  // Anything else is the key set's fetch failing (network error, non-200 answer).
  return new OidcFailure(
    "provider-unreachable",
    "The provider's signing keys (jwks_uri) could not be fetched. Try again in a moment.",
  );
}

export async function verifyIdToken(idToken: string, expected: IdTokenExpectations): Promise<VerifiedIdToken> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keySet(expected.jwksUri), {
      issuer: expected.issuer,
      audience: expected.clientId,
      algorithms: ALLOWED_ID_TOKEN_ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ["sub", "iat", "exp"],
    }));
  } catch (error) {
    throw describeJoseError(error, expected.names);
  }
  // jwtVerify checks iss, aud, exp, iat and nbf; the nonce and azp are OpenID Connect's own checks.
  if (typeof payload.nonce !== "string" || payload.nonce !== expected.nonce)
    throw refused("does not carry the nonce of this sign-in attempt (a replayed or injected token)");
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (payload.azp !== undefined && payload.azp !== expected.clientId)
    throw refused("was issued to a different authorized party (azp)");
  if (audiences.length > 1 && payload.azp === undefined)
    throw refused("names several audiences but no authorized party (azp)");
  if (typeof payload.sub !== "string" || payload.sub === "" || payload.sub.length > 255)
    throw refused("has no usable subject (sub)");
  // The subject names the member's grants in OAUTH_KV, URL-encoded, and Workers KV keys stop at 512 bytes: a longer
  // one would fail at the first grant. OpenID Connect allows 255 ASCII characters; most providers send fewer than 64.
  if (encodeURIComponent(payload.sub).length > MAX_ENCODED_SUBJECT)
    throw refused(
      `has a subject (sub) too long to store: over ${MAX_ENCODED_SUBJECT} characters once URL-encoded (characters other than ASCII letters, digits and -_.!~*'() take 3 to 12 each)`,
    );
  return { subject: payload.sub, claims: payload as VerifiedIdToken["claims"] };
}
