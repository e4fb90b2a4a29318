/**
 * Sign-in with a generic OpenID Connect provider: authorization code flow with PKCE (S256), state and nonce
 * bound to the browser, ID token verified against the provider's keys, and the organization and role taken
 * from the configured claims or the e-mail domain. Every failure becomes a page that says what happened.
 */
import { type Env, sessionSecret } from "../env";
import { getPolicy } from "../policy/load";
import { signInCandidates } from "../directory/client";
import { logInfo } from "../lib/log";
import type { Identity, SignInCompletion, SignInMethod } from "./identity";
import { readOidcConfig, type OidcConfig } from "./oidc-config";
import { discoverProvider } from "./oidc-discovery";
import { OidcFailure, oidcFailureResponse } from "./oidc-errors";
import { verifyIdToken } from "./oidc-id-token";
import { claimStrings, displayName, emailDomainOf, emailVerification, mapOrganization } from "./oidc-mapping";
import { mappingRefusal } from "./oidc-refusal";
import {
  clearFlowCookie,
  flowCookie,
  newFlow,
  type OidcFlow,
  openFlow,
  pkceChallenge,
  readFlowCookie,
  sameString,
  sealFlow,
} from "./oidc-state";
import { exchangeCode } from "./oidc-token";
import { needsUserinfo, withUserinfoClaims } from "./oidc-userinfo";

const restartHref = (returnTo: string) => `/signin/oidc?return=${encodeURIComponent(returnTo)}`;

function providerErrorFailure(error: string, description: string | null): OidcFailure {
  if (error === "access_denied") {
    return new OidcFailure(
      "provider-error",
      "Sign-in was cancelled or refused at the identity provider (access_denied). Nobody was signed in.",
    );
  }
  const said = description ? ` It said: "${description.slice(0, 200)}".` : "";
  return new OidcFailure(
    "provider-error",
    `The identity provider answered with the error "${error.slice(0, 80)}".${said} Nobody was signed in.`,
  );
}

/** Sends the browser to the provider of `config`; `organizationId` binds the attempt to an organization's own provider. */
export async function beginAt(
  env: Env,
  config: OidcConfig,
  returnTo: string,
  organizationId?: string,
): Promise<Response> {
  try {
    const secret = sessionSecret(env);
    const provider = await discoverProvider(config.issuer, config.names);
    const flow = newFlow(config.issuer, returnTo, organizationId);
    const target = new URL(provider.authorization_endpoint);
    target.searchParams.set("response_type", "code");
    target.searchParams.set("client_id", config.clientId);
    target.searchParams.set("redirect_uri", config.redirectUri);
    target.searchParams.set("scope", config.scopes);
    target.searchParams.set("state", flow.state);
    target.searchParams.set("nonce", flow.nonce);
    target.searchParams.set("code_challenge", await pkceChallenge(flow.codeVerifier));
    target.searchParams.set("code_challenge_method", "S256");
    return new Response(null, {
      status: 302,
      headers: {
        Location: target.href,
        "Set-Cookie": flowCookie(await sealFlow(flow, secret)),
        "Cache-Control": "no-store",
      },
    });
  } catch (error) {
    if (error instanceof OidcFailure) return oidcFailureResponse(error, restartHref(returnTo));
    throw error;
  }
}

async function begin(env: Env, returnTo: string): Promise<Response> {
  try {
    return await beginAt(env, readOidcConfig(env), returnTo);
  } catch (error) {
    if (error instanceof OidcFailure) return oidcFailureResponse(error, restartHref(returnTo));
    throw error;
  }
}

/**
 * How a finished sign-in at a provider becomes an organization and role: the platform provider maps claims against
 * the directory; an organization's own provider signs people into that organization only.
 */
export interface CallbackSettings {
  config: OidcConfig;
  organizationOf(
    claims: Readonly<Record<string, unknown>>,
  ): Promise<
    | { ok: true; organizationId: string; role: string; organizationFrom: string; roleFrom: string }
    | { ok: false; failure: OidcFailure }
  >;
}

export async function completeWith(
  env: Env,
  request: Request,
  settingsFor: (flow: OidcFlow) => Promise<CallbackSettings>,
): Promise<SignInCompletion> {
  let returnTo = "/";
  try {
    const secret = sessionSecret(env);
    const query = new URL(request.url).searchParams;
    const sealed = readFlowCookie(request);
    const opened = sealed ? await openFlow(sealed, secret) : undefined;
    const settings = opened ? await settingsFor(opened) : undefined;
    const config = settings?.config;
    const flow = opened;
    if (!flow || !settings || !config || flow.issuer !== config.issuer) {
      throw new OidcFailure(
        "flow-expired",
        "Arbiter has no sign-in in progress for this browser: it expired (after 10 minutes), was already completed, or was started in another browser. Start again from your app.",
      );
    }
    returnTo = flow.returnTo;
    const state = query.get("state");
    if (state === null || !sameString(state, flow.state)) {
      throw new OidcFailure(
        "state-mismatch",
        "The response's state does not match the sign-in this browser started, so it was ignored. Start again from your app.",
      );
    }
    // RFC 9207: a provider that names itself must be ours (mix-up defence).
    const iss = query.get("iss");
    if (iss !== null && iss !== config.issuer) {
      throw new OidcFailure(
        "state-mismatch",
        "The response comes from a different identity provider than the one this sign-in started with, so it was ignored.",
      );
    }
    const providerError = query.get("error");
    if (providerError !== null) throw providerErrorFailure(providerError, query.get("error_description"));
    const code = query.get("code");
    if (!code)
      throw new OidcFailure(
        "provider-invalid",
        "The identity provider sent the browser back without an authorization code.",
      );

    const provider = await discoverProvider(config.issuer, config.names);
    const tokens = await exchangeCode(config, provider, code, flow.codeVerifier);
    const verified = await verifyIdToken(tokens.idToken, {
      issuer: config.issuer,
      clientId: config.clientId,
      nonce: flow.nonce,
      jwksUri: provider.jwks_uri,
      names: config.names,
    });
    const claims = needsUserinfo(verified.claims, config.orgClaim, config.roleClaim)
      ? await withUserinfoClaims(verified.claims, verified.subject, provider, tokens.accessToken)
      : verified.claims;

    const mapping = await settings.organizationOf(claims);
    if (!mapping.ok) throw mapping.failure;

    const identity: Identity = {
      subject: verified.subject,
      name: displayName(claims, verified.subject),
      organizationId: mapping.organizationId,
      role: mapping.role,
      method: "oidc",
    };
    if (typeof claims.email === "string") {
      if (emailVerification(claims.email_verified) === false) identity.emailUnverified = true;
      else identity.email = claims.email;
    }
    logInfo("oidc sign-in", {
      organizationId: mapping.organizationId,
      organizationFrom: mapping.organizationFrom,
      role: mapping.role,
      roleFrom: mapping.roleFrom,
    });
    return { identity, returnTo, cookies: [clearFlowCookie()] };
  } catch (error) {
    if (!(error instanceof OidcFailure)) throw error;
    const response = oidcFailureResponse(error, restartHref(returnTo));
    // A forged or stray callback must not cancel the sign-in this browser really has in progress.
    if (error.code !== "state-mismatch") response.headers.append("Set-Cookie", clearFlowCookie());
    return { response };
  }
}

/** The platform provider (OIDC_ISSUER): claims and e-mail domains mapped against the directory's organizations. */
async function platformCallback(env: Env, flow: OidcFlow): Promise<CallbackSettings> {
  if (flow.organizationId)
    throw new OidcFailure(
      "flow-expired",
      "This sign-in started at an organization's own provider but came back to the platform provider's address. Start again from your app.",
    );
  const config = readOidcConfig(env);
  const settings = {
    ...(config.orgClaim ? { orgClaim: config.orgClaim } : {}),
    ...(config.roleClaim ? { roleClaim: config.roleClaim } : {}),
  };
  return {
    config,
    async organizationOf(claims) {
      // Only the organizations these claims can name are read (the mapping chooses among them).
      const claimValues = settings.orgClaim ? claimStrings(claims[settings.orgClaim]) : [];
      const email = typeof claims.email === "string" ? emailDomainOf(claims.email) : undefined;
      const organizations = await signInCandidates(env, claimValues, email ?? null);
      const directory = { organizations, roles: getPolicy().roles };
      const mapping = mapOrganization(claims, settings, directory);
      return mapping.ok ? mapping : { ok: false, failure: mappingRefusal(mapping, settings) };
    },
  };
}

/** The OpenID Connect sign-in method for this deployment's settings. */
export function oidcSignIn(env: Env): SignInMethod {
  return {
    id: "oidc",
    label: "Sign in with your organization's identity provider",
    begin: (_request, returnTo) => begin(env, returnTo),
    complete: (request) => completeWith(env, request, (flow) => platformCallback(env, flow)),
  };
}
