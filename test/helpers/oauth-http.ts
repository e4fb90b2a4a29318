/**
 * The one way Node tests get a token over HTTP from a running server (wrangler dev), the way a client and a
 * browser would: register a public client (DCR), sign in with the development sign-in, approve the consent
 * page, exchange the code with PKCE. `resource` picks the audience: `${url}/mcp` for MCP, `${url}/api` for the
 * REST API and /chat. Inside workerd the same dance is test/worker/helpers.ts (obtainTokens).
 */
import { createHash, randomBytes } from "node:crypto";

const REDIRECT_URI = "http://127.0.0.1:1/callback";

class CookieJar {
  private cookies = new Map<string, string>();
  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const pair = header.split(";")[0] ?? "";
      const index = pair.indexOf("=");
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (/max-age=0/i.test(header) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

function base64url(bytes: Buffer): string {
  return bytes.toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Registers a public client (DCR) with these redirect URIs; returns its client id. */
export async function registerClient(base: string, redirectUris: string[] = [REDIRECT_URI]): Promise<string> {
  const registration = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: "E2E client",
      redirect_uris: redirectUris,
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code"],
      response_types: ["code"],
    }),
  });
  if (registration.status !== 201)
    throw new Error(`registration failed: ${registration.status} ${await registration.text()}`);
  return ((await registration.json()) as { client_id: string }).client_id;
}

/**
 * What a user does in the browser for `authorizeUrl`: signs in with the development sign-in and approves the
 * consent page (the requested scopes, or the ones the page preselects). Returns the redirect to the client.
 */
export async function approveAuthorization(base: string, user: string, authorizeUrl: string): Promise<string | null> {
  const jar = new CookieJar();
  const browser = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (jar.header()) headers.set("Cookie", jar.header());
    const response = await fetch(path.startsWith("http") ? path : `${base}${path}`, {
      ...init,
      headers,
      redirect: "manual",
    });
    jar.store(response);
    return response;
  };
  const form = (fields: URLSearchParams) => ({
    method: "POST",
    body: fields,
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base },
  });

  const signIn = await browser("/signin/dev", form(new URLSearchParams({ user, return: "/" })));
  if (signIn.status >= 400) throw new Error(`dev sign-in failed: ${signIn.status}`);

  const page = await browser(authorizeUrl);
  let location = page.headers.get("location");
  if (page.status === 200) {
    const html = await page.text();
    const handle = /name="handle" value="([^"]+)"/
      .exec(html)?.[1]
      ?.replace(/&#(\d+);/g, (_m, code) => String.fromCharCode(Number(code)));
    if (!handle) throw new Error("no consent handle on the consent page");
    const approval = new URLSearchParams({ handle, decision: "approve" });
    const requested = new URL(authorizeUrl, base).searchParams.get("scope");
    const scopes = requested
      ? requested.split(" ")
      : [...html.matchAll(/name="scope" value="([^"]+)"[^>]*checked/g)].map((match) => match[1]!);
    for (const scope of scopes) approval.append("scope", scope);
    location = (await browser("/authorize", form(approval))).headers.get("location");
  } else if (page.status >= 400) {
    throw new Error(`authorize failed: ${page.status}`);
  }
  return location;
}

/** Redeems an authorization code at `${base}/oauth/token` (PKCE, a public client): the access token. */
export async function redeemCode(
  base: string,
  grant: { code: string; clientId: string; verifier: string; redirectUri: string; resource: string },
): Promise<string> {
  const token = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: grant.code,
      redirect_uri: grant.redirectUri,
      client_id: grant.clientId,
      code_verifier: grant.verifier,
      resource: grant.resource,
    }),
  });
  if (token.status !== 200) throw new Error(`token exchange failed: ${token.status} ${await token.text()}`);
  return ((await token.json()) as { access_token: string }).access_token;
}

export async function obtainToken(
  base: string,
  options: { user: string; scope: string; resource: string },
): Promise<string> {
  const clientId = await registerClient(base);
  const verifier = base64url(randomBytes(32));
  const challenge = base64url(createHash("sha256").update(verifier).digest());
  const authorize = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "e2e",
    resource: options.resource,
    scope: options.scope,
  });
  const location = await approveAuthorization(base, options.user, `/authorize?${authorize}`);
  const code = location ? new URL(location).searchParams.get("code") : null;
  if (!code) throw new Error(`no authorization code (redirect: ${location})`);

  return redeemCode(base, { code, clientId, verifier, redirectUri: REDIRECT_URI, resource: options.resource });
}
