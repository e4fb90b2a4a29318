/**
 * A member of an organization with its own OpenID Connect provider (oidc-provider on loopback) obtains an access
 * token the way a connector does: registers a client, goes through /authorize, types their work e-mail on Arbiter's
 * page, signs in and consents at the provider, consents on Arbiter's page, and redeems the code. Used by
 * test/node/organizations-e2e.test.ts and bench/scale.bench.ts (organizations created at runtime).
 */
import { HttpBrowser, locationOf } from "./http-browser";
import { redeemCode } from "./oauth-http";

const CLIENT_REDIRECT = "https://client.example/callback";

async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
  const verifier = b64(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

export interface OrgSignIn {
  /** Arbiter's URL (wrangler dev). */
  arbiter: string;
  /** The provider's account name and the e-mail typed on Arbiter's page. */
  account: string;
  email: string;
  scope: string;
  /** The protected resource the token is for (default `${arbiter}/mcp`). */
  resource?: string;
}

/** The token, or the page the flow stopped at (a refusal) when it did not finish. */
export async function orgSignIn(options: OrgSignIn): Promise<{ token?: string; page?: Response }> {
  const { arbiter, account, email, scope } = options;
  const resource = options.resource ?? `${arbiter}/mcp`;
  const registration = await fetch(`${arbiter}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: "organization sign-in client",
      redirect_uris: [CLIENT_REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code"],
      response_types: ["code"],
    }),
  });
  const { client_id } = (await registration.json()) as { client_id: string };
  const { verifier, challenge } = await pkce();
  const browser = new HttpBrowser();
  let url = `${arbiter}/authorize?${new URLSearchParams({
    response_type: "code",
    client_id,
    redirect_uri: CLIENT_REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s",
    scope,
    resource,
  })}`;
  for (let hop = 0; hop < 25; hop++) {
    const response = await browser.fetch(url);
    const next = locationOf(response, url);
    if (response.status >= 300 && response.status < 400 && next) {
      url = next;
      continue;
    }
    if (response.status !== 200) return { page: response };
    const page = await response.text();
    const chooser = /href="(\/signin\/org\?[^"]+)"/.exec(page)?.[1];
    if (url.startsWith(arbiter) && chooser) {
      // Several sign-in methods (development sign-in too): the organization's own.
      url = new URL(chooser.replace(/&amp;/g, "&"), arbiter).href;
      continue;
    }
    if (url.startsWith(arbiter) && page.includes('action="/signin/org"')) {
      // Arbiter's own page: the work e-mail names the organization, whose provider comes next.
      const posted = await browser.postForm(`${arbiter}/signin/org`, {
        email,
        return: new URL(url).searchParams.get("return") ?? "/",
      });
      if (posted.status !== 302) throw new Error(`the e-mail form answered ${posted.status}, not 302`);
      url = locationOf(posted, url)!;
      continue;
    }
    if (url.startsWith(arbiter) && page.includes('name="handle"')) {
      const handle = /name="handle" value="([^"]+)"/
        .exec(page)![1]!
        .replace(/&#(\d+);/g, (_m, c) => String.fromCharCode(Number(c)));
      // One `scope` field per ticked box, as the consent page's form sends them.
      const form = new URLSearchParams({ handle, decision: "approve" });
      for (const name of scope.split(" ")) form.append("scope", name);
      const approved = await browser.fetch(`${arbiter}/authorize`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: arbiter },
        body: form,
      });
      const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
      const grant = { code, clientId: client_id, verifier, redirectUri: CLIENT_REDIRECT, resource };
      return { token: await redeemCode(arbiter, grant) };
    }
    // The provider's development login and consent forms.
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (!action) throw new Error(`no form at ${url}: ${page.slice(0, 300)}`);
    const submit = new URL(action.replace(/&amp;/g, "&"), url).href;
    const posted = page.includes('name="prompt" value="login"')
      ? await browser.postForm(submit, { prompt: "login", login: account, password: "any" })
      : await browser.postForm(submit, { prompt: "consent" });
    url = locationOf(posted, submit)!;
  }
  throw new Error("sign-in did not finish within 25 hops");
}
