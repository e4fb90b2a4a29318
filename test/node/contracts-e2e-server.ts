/**
 * Test support for the CI API end-to-end tests: the OAuth dance over real HTTP (development sign-in, consent,
 * code exchange) to obtain a token for the REST resource of a `wrangler dev` started with
 * test/helpers/wrangler-dev.ts.
 */
class Cookies {
  private jar = new Map<string, string>();
  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(";");
      const index = pair!.indexOf("=");
      this.jar.set(pair!.slice(0, index).trim(), pair!.slice(index + 1).trim());
    }
  }
  header(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

/** Register a public client, sign in as `user` with the development sign-in, approve `scope`, get a REST token (or one for `resource`). */
export async function restTokenOverHttp(base: string, user: string, scope: string, resource = `${base}/api`): Promise<string> {
  const registration = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "e2e", redirect_uris: ["https://client.example/callback"], token_endpoint_auth_method: "none", grant_types: ["authorization_code"], response_types: ["code"] }),
  });
  const client = (await registration.json()) as { client_id: string };
  const cookies = new Cookies();
  const send = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (cookies.header()) headers.set("Cookie", cookies.header());
    const response = await fetch(path.startsWith("http") ? path : `${base}${path}`, { ...init, headers, redirect: "manual" });
    cookies.store(response);
    return response;
  };
  await send("/signin/dev", { method: "POST", body: new URLSearchParams({ user, return: "/" }), headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base } });
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  const authorize = new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: "https://client.example/callback", code_challenge: challenge, code_challenge_method: "S256", state: "s", resource, scope });
  const page = await send(`/authorize?${authorize}`);
  let location = page.headers.get("location");
  if (page.status === 200) {
    const html = await page.text();
    const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1]?.replace(/&#(\d+);/g, (_m, code) => String.fromCharCode(Number(code)));
    if (!handle) throw new Error(`no consent handle: ${html.slice(0, 300)}`);
    const form = new URLSearchParams({ handle, decision: "approve" });
    for (const s of scope.split(" ")) form.append("scope", s);
    const approved = await send("/authorize", { method: "POST", body: form, headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base } });
    location = approved.headers.get("location");
  }
  const code = location ? new URL(location).searchParams.get("code") : null;
  if (!code) throw new Error(`no authorization code (${location})`);
  const token = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: "https://client.example/callback", client_id: client.client_id, code_verifier: verifier, resource }),
  });
  if (token.status !== 200) throw new Error(`token exchange failed: ${token.status} ${await token.text()}`);
  return ((await token.json()) as { access_token: string }).access_token;
}
