/**
 * The OpenID Connect settings of this deployment, read from Worker vars and the OIDC_CLIENT_SECRET secret.
 * OIDC sign-in is on when OIDC_ISSUER and OIDC_CLIENT_ID are both set (wrangler.toml leaves them empty).
 */
import { OidcFailure } from "./oidc-errors";

/** The Worker vars and secret this module reads (a structural subset of Env, so Node tests can use it too). */
export interface OidcVars {
  PUBLIC_URL: string;
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  OIDC_ORG_CLAIM?: string;
  OIDC_ROLE_CLAIM?: string;
  OIDC_SCOPES?: string;
}

/**
 * What a provider's settings are called where they are set, and who sets them, so a failure's message tells the
 * right person what to change: the operator's Worker vars for the platform provider, an organization's `signIn`.
 */
export interface ProviderSettingNames {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who changes them, as the start of a sentence. */
  owner: string;
}

export const PLATFORM_PROVIDER_SETTINGS: ProviderSettingNames = {
  issuer: "OIDC_ISSUER",
  clientId: "OIDC_CLIENT_ID",
  clientSecret: "the OIDC_CLIENT_SECRET secret",
  owner: "The operator",
};

export const ORGANIZATION_PROVIDER_SETTINGS: ProviderSettingNames = {
  issuer: "the organization's signIn.issuer",
  clientId: "its signIn.clientId",
  clientSecret: "its signInClientSecret secret",
  owner: "An administrator of the organization",
};

export interface OidcConfig {
  /** Where these settings are set, for messages. */
  names: ProviderSettingNames;
  issuer: string;
  clientId: string;
  /** Undefined: a public client (PKCE only, `token_endpoint_auth_method=none`). */
  clientSecret?: string;
  orgClaim?: string;
  roleClaim?: string;
  scopes: string;
  /** `${PUBLIC_URL}/signin/oidc/callback`, registered at the provider. */
  redirectUri: string;
}

export const OIDC_CALLBACK_PATH = "/signin/oidc/callback";

export function oidcEnabled(env: OidcVars): boolean {
  return Boolean(env.OIDC_ISSUER?.trim() && env.OIDC_CLIENT_ID?.trim());
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Provider URLs must be https. Plain http is accepted only on loopback, for local development and tests
 * (a deployed Worker cannot reach loopback anyway).
 */
export function isAcceptableProviderUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && isLoopbackHost(url.hostname);
}

const optional = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

/** The validated settings; throws OidcFailure("configuration") naming the variable to fix. */
export function readOidcConfig(env: OidcVars): OidcConfig {
  const issuer = env.OIDC_ISSUER?.trim() ?? "";
  const clientId = env.OIDC_CLIENT_ID?.trim() ?? "";
  if (!issuer || !clientId) throw new OidcFailure("configuration", "OIDC_ISSUER and OIDC_CLIENT_ID must both be set.");
  if (!isAcceptableProviderUrl(issuer)) {
    throw new OidcFailure(
      "configuration",
      "OIDC_ISSUER must be an https URL (plain http only on localhost/127.0.0.1 for development).",
    );
  }
  const scopes = optional(env.OIDC_SCOPES) ?? "openid email profile";
  if (!scopes.split(/\s+/).includes("openid"))
    throw new OidcFailure("configuration", "OIDC_SCOPES must include openid.");
  const redirectUri = new URL(OIDC_CALLBACK_PATH, env.PUBLIC_URL).href;
  const config: OidcConfig = { names: PLATFORM_PROVIDER_SETTINGS, issuer, clientId, scopes, redirectUri };
  const clientSecret = optional(env.OIDC_CLIENT_SECRET);
  if (clientSecret) config.clientSecret = clientSecret;
  const orgClaim = optional(env.OIDC_ORG_CLAIM);
  if (orgClaim) config.orgClaim = orgClaim;
  const roleClaim = optional(env.OIDC_ROLE_CLAIM);
  if (roleClaim) config.roleClaim = roleClaim;
  return config;
}
