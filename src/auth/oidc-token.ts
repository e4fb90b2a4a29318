/**
 * The authorization code exchange at the provider's token endpoint (OpenID Connect Core 3.1.3), with the
 * PKCE verifier and client authentication by client_secret_basic (preferred) or client_secret_post, or none
 * for a public client. The secret goes only into the request to the token endpoint; it is never logged or
 * echoed in an error.
 */
import type { OidcConfig, ProviderSettingNames } from "./oidc-config";
import type { ProviderMetadata } from "./oidc-discovery";
import { OidcFailure } from "./oidc-errors";

export interface ProviderTokens {
  idToken: string;
  accessToken?: string;
}

const FETCH_TIMEOUT_MS = 10_000;

type ClientAuthMethod = "client_secret_basic" | "client_secret_post" | "none";

export function clientAuthMethod(config: OidcConfig, provider: ProviderMetadata): ClientAuthMethod {
  if (!config.clientSecret) return "none";
  // The Discovery spec's default when the provider lists nothing is client_secret_basic.
  const supported = provider.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
  if (supported.includes("client_secret_basic")) return "client_secret_basic";
  if (supported.includes("client_secret_post")) return "client_secret_post";
  throw new OidcFailure(
    "configuration",
    `The identity provider accepts neither client_secret_basic nor client_secret_post at its token endpoint (it lists: ${supported.join(", ")}). Configure the client at the provider for one of them.`,
  );
}

/** RFC 6749 section 2.3.1: client id and secret are form-encoded before they are joined and base64-encoded. */
function basicCredentials(clientId: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");
  return `Basic ${btoa(`${encode(clientId)}:${encode(secret)}`)}`;
}

function refusal(error: string, description: string | undefined, names: ProviderSettingNames): OidcFailure {
  const said = description ? ` The provider said: "${description.slice(0, 200)}".` : "";
  switch (error) {
    case "invalid_client":
    case "unauthorized_client":
      return new OidcFailure(
        "token-refused",
        `The provider did not accept Arbiter's client credentials (${error}). ${names.owner} should check ${names.clientId} and ${names.clientSecret}.${said}`,
      );
    case "invalid_grant":
      return new OidcFailure(
        "token-refused",
        `The sign-in code was refused (invalid_grant): it expired, was already used, or its PKCE verifier did not match.${said}`,
      );
    default:
      return new OidcFailure(
        "token-refused",
        `The provider's token endpoint answered with the error "${error.slice(0, 80)}".${said}`,
      );
  }
}

export async function exchangeCode(
  config: OidcConfig,
  provider: ProviderMetadata,
  code: string,
  codeVerifier: string,
): Promise<ProviderTokens> {
  const body = new URLSearchParams({
    grant_type: "authorization_code",
    code,
    redirect_uri: config.redirectUri,
    code_verifier: codeVerifier,
  });
  const headers = new Headers({ "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" });
  const method = clientAuthMethod(config, provider);
  if (method === "client_secret_basic")
    headers.set("Authorization", basicCredentials(config.clientId, config.clientSecret!));
  else body.set("client_id", config.clientId);
  if (method === "client_secret_post") body.set("client_secret", config.clientSecret!);

  let response: Response;
  try {
    response = await fetch(provider.token_endpoint, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (error) {
    throw new OidcFailure(
      "provider-unreachable",
      `Arbiter could not reach the provider's token endpoint (${error instanceof Error ? error.name : "network error"}). Try again in a moment.`,
    );
  }
  let payload: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = await response.json();
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      payload = parsed as Record<string, unknown>;
  } catch {
    payload = undefined;
  }
  if (response.status !== 200) {
    if (payload && typeof payload.error === "string") {
      throw refusal(
        payload.error,
        typeof payload.error_description === "string" ? payload.error_description : undefined,
        config.names,
      );
    }
    throw new OidcFailure(
      "provider-invalid",
      `The provider's token endpoint answered HTTP ${response.status} without an OAuth error.`,
    );
  }
  if (!payload)
    throw new OidcFailure("provider-invalid", "The provider's token endpoint did not answer with a JSON object.");
  if (typeof payload.id_token !== "string" || payload.id_token === "") {
    throw new OidcFailure(
      "provider-invalid",
      "The provider's token response has no id_token. Make sure OIDC_SCOPES includes openid and the client is an OpenID Connect client.",
    );
  }
  const tokens: ProviderTokens = { idToken: payload.id_token };
  if (typeof payload.access_token === "string" && payload.access_token !== "")
    tokens.accessToken = payload.access_token;
  return tokens;
}
