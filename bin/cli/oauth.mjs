// OAuth for a person at a terminal: discovery, client registration, the authorization request, token answers.
import { fail } from "./errors.mjs";
import { VERSION } from "./help.mjs";
import { OAUTH_TIMEOUT_MS, jsonBody, reach } from "./http.mjs";
import { CLI_SCOPES, OFFLINE_ACCESS } from "./scopes.mjs";
import { printable } from "./text.mjs";

// The authorization-code flow with PKCE (S256) through the person's browser and a loopback redirect
// (RFC 8252: http://127.0.0.1:<random port>/callback; section 7.3 has the server accept any port there, so the
// client registered once keeps working on the next login's port). The CLI registers itself as a public client
// (RFC 7591, token_endpoint_auth_method none) and finds every endpoint in the server's metadata (RFC 9728 for
// the protected resource, RFC 8414 for the authorization server).

export function oauthProblem(status, data) {
  const code = typeof data?.error === "string" ? ` ${printable(data.error, 60)}` : "";
  const description = typeof data?.error_description === "string" ? `: ${printable(data.error_description)}` : "";
  return `${status}${code}${description}`;
}

/** RFC 8414 section 3 and RFC 9728 section 3.1: the well-known segment goes between the host and the path. */
function wellKnown(identifier, name) {
  const url = new URL(identifier);
  return `${url.origin}/.well-known/${name}${url.pathname === "/" ? "" : url.pathname}`;
}

async function metadataDocument(url, origin) {
  const response = await reach(url, { headers: { Accept: "application/json" } }, OAUTH_TIMEOUT_MS);
  const data = response.ok ? await jsonBody(response) : undefined;
  if (!data || typeof data !== "object")
    fail(
      `${origin} does not look like an Arbiter server: GET ${new URL(url).pathname} answered ${response.status}${response.ok ? " without JSON" : ""}. Check --server.`,
    );
  return data;
}

export async function discover(origin, resourceName) {
  const resource = `${origin}/${resourceName}`;
  const protectedResource = await metadataDocument(wellKnown(resource, "oauth-protected-resource"), origin);
  if (protectedResource.resource !== resource)
    fail(
      `${origin} describes the resource "${printable(protectedResource.resource)}" at its ${resourceName} metadata, not ${resource}: is --server the server's public URL?`,
    );
  const issuer = Array.isArray(protectedResource.authorization_servers)
    ? protectedResource.authorization_servers[0]
    : undefined;
  if (typeof issuer !== "string") fail(`${origin}'s resource metadata names no authorization server.`);
  const server = await metadataDocument(wellKnown(issuer, "oauth-authorization-server"), origin);
  if (server.issuer !== issuer)
    fail(
      `The authorization server metadata of ${printable(issuer)} names another issuer (${printable(server.issuer)}): refusing to sign in there.`,
    );
  for (const field of ["authorization_endpoint", "token_endpoint", "registration_endpoint"]) {
    if (typeof server[field] !== "string")
      fail(`The authorization server ${issuer} has no ${field} in its metadata; the CLI needs it to sign in.`);
  }
  if (
    Array.isArray(server.code_challenge_methods_supported) &&
    !server.code_challenge_methods_supported.includes("S256")
  )
    fail(`The authorization server ${issuer} does not support PKCE with S256.`);
  return {
    resource,
    issuer,
    baselineScopes: Array.isArray(protectedResource.scopes_supported)
      ? protectedResource.scopes_supported.filter((s) => typeof s === "string")
      : [],
    scopesSupported: Array.isArray(server.scopes_supported) ? server.scopes_supported : undefined,
    authorizationEndpoint: server.authorization_endpoint,
    tokenEndpoint: server.token_endpoint,
    registrationEndpoint: server.registration_endpoint,
    revocationEndpoint: typeof server.revocation_endpoint === "string" ? server.revocation_endpoint : undefined,
  };
}

export function requestedScopes(values, resourceName, endpoints) {
  const given = [...(values.scope ?? []), ...(values.scopes ?? [])];
  const asked = given.length
    ? given.flatMap((s) => s.split(/[\s,]+/)).filter(Boolean)
    : [...(resourceName === "chat" ? [] : endpoints.baselineScopes), ...CLI_SCOPES[resourceName]];
  const scopes = [...new Set([...asked, OFFLINE_ACCESS])];
  const unknown = endpoints.scopesSupported ? scopes.filter((s) => !endpoints.scopesSupported.includes(s)) : [];
  if (unknown.length > 0)
    fail(
      `Unknown scope${unknown.length === 1 ? "" : "s"} ${unknown.map((s) => printable(s, 64)).join(", ")}: the server offers ${endpoints.scopesSupported.join(" ")}.`,
    );
  return scopes;
}

export const base64url = (bytes) => Buffer.from(bytes).toString("base64url");

export async function registerClient(endpoints, redirectUri) {
  const response = await reach(
    endpoints.registrationEndpoint,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({
        client_name: "Arbiter CLI",
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        software_id: "arbiter-cli",
        software_version: VERSION,
      }),
    },
    OAUTH_TIMEOUT_MS,
  );
  const data = await jsonBody(response);
  if (!response.ok || typeof data?.client_id !== "string")
    fail(`The server refused to register the CLI as an OAuth client (${oauthProblem(response.status, data)}).`);
  return data.client_id;
}

export function authorizationUrl(endpoints, clientId, redirectUri, scopes, state, challenge) {
  const url = new URL(endpoints.authorizationEndpoint);
  const params = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: scopes.join(" "),
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: endpoints.resource,
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

/**
 * Whether the authorization endpoint takes the request. RFC 6749 section 4.1.2.1: a server that does not know
 * the client or will not send to the redirect URI answers itself (4xx) instead of redirecting; anything else
 * (the sign-in redirect) means the browser can go ahead. Checked before the browser opens, so a forgotten client
 * or a refused loopback port is a message here, not an error page and a five-minute wait.
 */
export async function authorizationAccepted(url) {
  const response = await reach(url, { redirect: "manual", headers: { Accept: "text/html" } }, OAUTH_TIMEOUT_MS);
  await response.body?.cancel();
  return { ok: response.status < 400, status: response.status };
}

export function storedTokens(data, now, previous) {
  if (typeof data?.access_token !== "string" || String(data.token_type).toLowerCase() !== "bearer")
    fail("The server's token answer carries no bearer access token.");
  const seconds = Number(data.expires_in);
  return {
    accessToken: data.access_token,
    // RFC 6749 section 6: a refresh answer without a new refresh token leaves the old one in use.
    refreshToken: typeof data.refresh_token === "string" ? data.refresh_token : previous?.refreshToken,
    expiresAt: Number.isFinite(seconds) && seconds > 0 ? new Date(now + seconds * 1000).toISOString() : null,
    scope: typeof data.scope === "string" ? data.scope : (previous?.scope ?? ""),
  };
}
