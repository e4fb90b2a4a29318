/**
 * OpenID Provider discovery (OpenID Connect Discovery 1.0, section 4): fetch and check
 * `${issuer}/.well-known/openid-configuration`, cached per isolate. Only successful lookups are cached, so
 * a provider that was down is asked again on the next sign-in.
 */
import { isAcceptableProviderUrl, type ProviderSettingNames } from "./oidc-config";
import { OidcFailure } from "./oidc-errors";

export interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
  token_endpoint_auth_methods_supported?: string[];
  code_challenge_methods_supported?: string[];
}

const CACHE_TTL_MS = 60 * 60 * 1000;
const FETCH_TIMEOUT_MS = 5_000;
const cache = new Map<string, { metadata: ProviderMetadata; fetchedAt: number }>();

export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
}

/**
 * Checks a discovery document against the configured issuer (set as `names.issuer`); throws OidcFailure
 * ("provider-invalid", or "configuration" when the issuer setting is what to change).
 */
export function validateProviderMetadata(
  document: unknown,
  issuer: string,
  names: ProviderSettingNames,
): ProviderMetadata {
  const invalid = (why: string) =>
    new OidcFailure("provider-invalid", `The discovery document at ${discoveryUrl(issuer)} ${why}`);
  if (typeof document !== "object" || document === null || Array.isArray(document))
    throw invalid("is not a JSON object.");
  const doc = document as Record<string, unknown>;
  if (doc.issuer !== issuer) {
    throw new OidcFailure(
      "configuration",
      `The provider names itself ${JSON.stringify(String(doc.issuer))}, but ${names.issuer} is ${JSON.stringify(issuer)}. They must be identical: set ${names.issuer} to the provider's issuer exactly.`,
    );
  }
  for (const field of ["authorization_endpoint", "token_endpoint", "jwks_uri"] as const) {
    const value = doc[field];
    if (typeof value !== "string") throw invalid(`has no ${field}.`);
    if (!isAcceptableProviderUrl(value)) throw invalid(`gives a ${field} that is not https: ${value}`);
  }
  if (
    doc.userinfo_endpoint !== undefined &&
    (typeof doc.userinfo_endpoint !== "string" || !isAcceptableProviderUrl(doc.userinfo_endpoint))
  ) {
    throw invalid("gives a userinfo_endpoint that is not an https URL.");
  }
  const stringList = (field: string): string[] | undefined => {
    const value = doc[field];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string"))
      throw invalid(`has a ${field} that is not a list of strings.`);
    return value;
  };
  const pkceMethods = stringList("code_challenge_methods_supported");
  if (pkceMethods && !pkceMethods.includes("S256")) {
    throw new OidcFailure(
      "configuration",
      "The identity provider does not support PKCE with S256, which Arbiter requires. Enable PKCE (S256) for this client at the provider.",
    );
  }
  const metadata: ProviderMetadata = {
    issuer,
    authorization_endpoint: doc.authorization_endpoint as string,
    token_endpoint: doc.token_endpoint as string,
    jwks_uri: doc.jwks_uri as string,
  };
  if (typeof doc.userinfo_endpoint === "string") metadata.userinfo_endpoint = doc.userinfo_endpoint;
  const authMethods = stringList("token_endpoint_auth_methods_supported");
  if (authMethods) metadata.token_endpoint_auth_methods_supported = authMethods;
  if (pkceMethods) metadata.code_challenge_methods_supported = pkceMethods;
  return metadata;
}

/** The provider's metadata, from this isolate's cache or freshly discovered; `names` words the failures. */
export async function discoverProvider(
  issuer: string,
  names: ProviderSettingNames,
  now = Date.now(),
): Promise<ProviderMetadata> {
  const cached = cache.get(issuer);
  if (cached && now - cached.fetchedAt < CACHE_TTL_MS) return cached.metadata;

  const url = discoveryUrl(issuer);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { Accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (error) {
    throw new OidcFailure(
      "provider-unreachable",
      `Arbiter could not fetch ${url} (${error instanceof Error ? error.name : "network error"}). Check that the provider is up and that ${names.issuer} is right.`,
    );
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new OidcFailure(
      "provider-invalid",
      `${url} answered HTTP ${response.status} instead of the provider's discovery document. Check ${names.issuer}.`,
    );
  }
  let document: unknown;
  try {
    document = await response.json();
  } catch {
    throw new OidcFailure("provider-invalid", `${url} did not return JSON. Check ${names.issuer}.`);
  }
  const metadata = validateProviderMetadata(document, issuer, names);
  cache.set(issuer, { metadata, fetchedAt: now });
  return metadata;
}

/** Forgets cached discovery documents (tests). */
export function clearDiscoveryCache(): void {
  cache.clear();
}
