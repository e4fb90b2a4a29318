// The consent page and the sign-in in front of it: what it shows, what it refuses, and remembered consent.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { SELF } from "./self";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { CIMD_BIDI_CLIENT_ID } from "../fixtures/cimd-documents";
import {
  BASE,
  MCP_URL,
  CookieJar,
  authorizeUrl,
  browserFetch,
  consentHandle,
  devSignIn,
  exchangeCode,
  pkcePair,
  registerClient,
  type RegisteredClient,
} from "./helpers";

const FORM = { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE };

async function openConsent(user: string, client: RegisteredClient, scope?: string, jar = new CookieJar()) {
  await devSignIn(jar, user);
  const { verifier, challenge } = await pkcePair();
  const page = await browserFetch(jar, authorizeUrl(client, challenge, { scope }));
  return { jar, page, verifier, challenge };
}

/** `requested`: boxes for scopes the client asked for; `more`: the rest the role may grant; `checked`: ticked ones. */
function checkboxes(html: string): { checked: string[]; requested: string[]; more: string[]; all: string[] } {
  const inputs = [...html.matchAll(/<input type="checkbox" name="scope" value="([^"]+)"([^>]*)>/g)].map((m) => ({
    scope: m[1]!,
    attributes: m[2]!,
  }));
  return {
    checked: inputs.filter((i) => / checked/.test(i.attributes)).map((i) => i.scope),
    requested: inputs.filter((i) => / data-requested/.test(i.attributes)).map((i) => i.scope),
    more: inputs.filter((i) => !/ data-requested/.test(i.attributes)).map((i) => i.scope),
    all: inputs.map((i) => i.scope),
  };
}

async function approve(
  jar: CookieJar,
  html: string,
  scopes: string[],
  headers: Record<string, string> = FORM,
): Promise<Response> {
  const form = new URLSearchParams({ handle: consentHandle(html), decision: "approve" });
  for (const scope of scopes) form.append("scope", scope);
  return browserFetch(jar, "/authorize", { method: "POST", body: form, headers });
}

/** The characters a bidi or control-character attack needs; none may reach a page. */
const UNSAFE =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200B\u200E\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/;

describe("sign-in before consent", () => {
  it("sends a signed-out browser to sign-in and back to the same authorization request", async () => {
    const client = await registerClient();
    const jar = new CookieJar();
    const { challenge } = await pkcePair();
    const url = authorizeUrl(client, challenge);
    const res = await browserFetch(jar, url);
    expect(res.status).toBe(302);
    const signin = new URL(res.headers.get("location")!, BASE);
    expect(signin.pathname).toBe("/signin");
    const returnTo = signin.searchParams.get("return")!;
    expect(returnTo).toBe(new URL(url).pathname + new URL(url).search);
    const form = await browserFetch(jar, signin.pathname + signin.search);
    const html = await form.text();
    expect(html).toContain("Development sign-in");
    expect(html).toMatch(/for local use only/);
    const signedIn = await devSignIn(jar, "ana", returnTo);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe(returnTo);
  });

  it("never redirects to another site after sign-in", async () => {
    const jar = new CookieJar();
    for (const target of ["https://evil.example/", "//evil.example/x", "/\\evil.example"]) {
      const res = await devSignIn(jar, "ana", target);
      expect(res.headers.get("location")).toBe("/");
    }
  });

  it("refuses an unknown development user and a cross-site sign-in post", async () => {
    const jar = new CookieJar();
    expect((await devSignIn(jar, "nobody")).status).toBe(400);
    const crossSite = await browserFetch(jar, "/signin/dev", {
      method: "POST",
      body: new URLSearchParams({ user: "ana" }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(403);
  });

  it("offers no development sign-in when ARBITER_DEV_SIGN_IN is not true", async () => {
    const ctx = createExecutionContext();
    const off = { ...env, ARBITER_DEV_SIGN_IN: "false", SESSION_SECRET: "x".repeat(40) };
    const signin = await worker.fetch(new Request(`${BASE}/signin`), off, ctx);
    expect(signin.status).toBe(503);
    expect(await signin.text()).toMatch(/no sign-in method/);
    const post = await worker.fetch(
      new Request(`${BASE}/signin/dev`, { method: "POST", body: new URLSearchParams({ user: "ana" }), headers: FORM }),
      off,
      ctx,
    );
    expect(post.status).toBe(404);
    expect(post.headers.get("set-cookie")).toBeNull();
    await waitOnExecutionContext(ctx);
  });
});

describe("consent page", () => {
  it("escapes a client name with HTML in it", async () => {
    const client = await registerClient({ client_name: `<script>alert("x")</script><img src=x onerror=alert(1)>` });
    const { page } = await openConsent("ana", client);
    const html = await page.text();
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;");
  });

  it("names the redirect host, says a self-registered name is unverified, and cannot be framed", async () => {
    const client = await registerClient();
    const { page } = await openConsent("ana", client);
    const html = await page.text();
    expect(html).toContain('id="redirect-host">client.example<');
    expect(html).toMatch(/not verified/);
    expect(html).not.toContain('id="loopback-warning"');
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("cache-control")).toContain("no-store");
  });

  it("warns about a loopback redirect", async () => {
    const client = await registerClient({ redirect_uris: ["http://127.0.0.1:9999/callback"] });
    const { page } = await openConsent("ana", client);
    expect(await page.text()).toContain('id="loopback-warning"');
  });

  it("offers only what the member's role may grant, and a forged form cannot add more", async () => {
    const client = await registerClient();
    const { jar, page, verifier } = await openConsent("mia", client, "orders.read orders.search orders.pii");
    const html = await page.text();
    expect(checkboxes(html).requested).toEqual(["orders.read", "orders.search"]);
    expect(checkboxes(html).more).toEqual(["contracts.read"]);
    expect(html).toMatch(/Your role cannot grant:.*orders\.pii/s);
    const approved = await approve(jar, html, ["orders.read", "orders.pii", "keys.admin"]);
    expect(approved.status).toBe(302);
    const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
    const tokens = (await (await exchangeCode(client, code, verifier)).json()) as { scope: string };
    expect(tokens.scope).toBe("orders.read");
  });

  it("grants exactly the ticked subset", async () => {
    const client = await registerClient();
    const { jar, page, verifier } = await openConsent("ana", client, "orders.read orders.search orders.pii");
    const html = await page.text();
    expect(checkboxes(html).requested).toEqual(["orders.read", "orders.search", "orders.pii"]);
    const approved = await approve(jar, html, ["orders.read", "orders.search"]);
    const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
    const tokens = (await (await exchangeCode(client, code, verifier)).json()) as { scope: string };
    expect(tokens.scope.split(" ").sort()).toEqual(["orders.read", "orders.search"]);
  });

  it("Deny returns access_denied with state and issuer to the client", async () => {
    const client = await registerClient();
    const { jar, page } = await openConsent("ana", client);
    const form = new URLSearchParams({ handle: consentHandle(await page.text()), decision: "deny" });
    const denied = await browserFetch(jar, "/authorize", { method: "POST", body: form, headers: FORM });
    expect(denied.status).toBe(302);
    const location = new URL(denied.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe("https://client.example/callback");
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("state-123");
    expect(location.searchParams.get("iss")).toBe(BASE);
  });

  it("refuses a tampered handle with a page, not a 500", async () => {
    const client = await registerClient();
    const { jar, page } = await openConsent("ana", client);
    await page.text();
    const form = new URLSearchParams({ handle: "tampered-handle", decision: "approve", scope: "orders.read" });
    const res = await browserFetch(jar, "/authorize", { method: "POST", body: form, headers: FORM });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });

  it("binds the handle to the browser that opened the page", async () => {
    const client = await registerClient();
    const { page } = await openConsent("ana", client);
    const html = await page.text();
    const otherBrowser = new CookieJar();
    await devSignIn(otherBrowser, "ana");
    const res = await approve(otherBrowser, html, ["orders.read"]);
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });

  it("refuses a consent post from a signed-out browser", async () => {
    const res = await SELF.fetch(`${BASE}/authorize`, {
      method: "POST",
      body: new URLSearchParams({ handle: "x", decision: "approve" }),
      headers: FORM,
    });
    expect(res.status).toBe(401);
  });
});

describe("remembered consent", () => {
  it("skips the page for the same or narrower scopes, shows it for wider ones, and forgets after revocation", async () => {
    const client = await registerClient();
    const jar = new CookieJar();
    const first = await openConsent("ana", client, "orders.read orders.search offline_access", jar);
    expect(first.page.status).toBe(200);
    const approved = await approve(jar, await first.page.text(), ["orders.read", "orders.search", "offline_access"]);
    const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
    expect((await exchangeCode(client, code, first.verifier)).status).toBe(200);

    const same = await browserFetch(
      jar,
      authorizeUrl(client, (await pkcePair()).challenge, { scope: "orders.read orders.search offline_access" }),
    );
    expect(same.status).toBe(302);
    expect(new URL(same.headers.get("location")!).searchParams.get("code")).toBeTruthy();

    const narrower = await browserFetch(
      jar,
      authorizeUrl(client, (await pkcePair()).challenge, { scope: "orders.read" }),
    );
    expect(narrower.status).toBe(302);

    const wider = await browserFetch(
      jar,
      authorizeUrl(client, (await pkcePair()).challenge, { scope: "orders.read orders.pii" }),
    );
    expect(wider.status).toBe(200);
    expect(await wider.text()).toContain('name="handle"');

    // Revoke (RFC 7009, as a client or a user disconnecting does): the grant ends, and the remembered
    // approval no longer skips the page.
    const pkce = await pkcePair();
    const latest = await browserFetch(
      jar,
      authorizeUrl(client, pkce.challenge, { scope: "orders.read offline_access" }),
    );
    expect(latest.status).toBe(302);
    const latestCode = new URL(latest.headers.get("location")!).searchParams.get("code")!;
    const latestTokens = (await (await exchangeCode(client, latestCode, pkce.verifier)).json()) as {
      refresh_token: string;
    };
    const revoke = await SELF.fetch(`${BASE}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: latestTokens.refresh_token,
        token_type_hint: "refresh_token",
        client_id: client.client_id,
      }),
    });
    expect(revoke.status).toBe(200);
    const afterRevoke = await browserFetch(
      jar,
      authorizeUrl(client, (await pkcePair()).challenge, { scope: "orders.read" }),
    );
    expect(afterRevoke.status).toBe(200);
    expect(await afterRevoke.text()).toContain('name="handle"');
  });

  it("an administrator revoking the grant also forgets the approval", async () => {
    const client = await registerClient();
    const jar = new CookieJar();
    const first = await openConsent("dev", client, "orders.read", jar);
    await approve(jar, await first.page.text(), ["orders.read"]);
    const again = await browserFetch(jar, authorizeUrl(client, (await pkcePair()).challenge, { scope: "orders.read" }));
    expect(again.status).toBe(302);
    const oauth = await oauthHelpers();
    const grants = await oauth.listUserGrants("acme--dev");
    expect(grants.items.length).toBeGreaterThan(0);
    for (const grant of grants.items) await oauth.revokeGrant(grant.id, "acme--dev");
    const afterRevoke = await browserFetch(
      jar,
      authorizeUrl(client, (await pkcePair()).challenge, { scope: "orders.read" }),
    );
    expect(afterRevoke.status).toBe(200);
  });
});

/** The OAuth helpers, as the admin console and the clients API use them. */
async function oauthHelpers() {
  const { getOAuthServers } = await import("../../src/oauth/servers");
  const { mcpResourceHandler } = await import("../../src/mcp/http");
  const { apiResourceHandler } = await import("../../src/api");
  return getOAuthServers(env, { mcp: mcpResourceHandler, api: apiResourceHandler }).authorizationServer.getOAuthApi(
    env,
  );
}

describe("where the consent answer comes from", () => {
  const FORM_ONLY = { "Content-Type": "application/x-www-form-urlencoded" };

  it("refuses an approval posted from another site's Origin: 403 page, no code, and the page still works after", async () => {
    const client = await registerClient();
    const { jar, page, verifier } = await openConsent("ana", client, "orders.read");
    const html = await page.text();
    const crossSite = await approve(jar, html, ["orders.read"], { ...FORM_ONLY, Origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get("location")).toBeNull();
    expect(crossSite.headers.get("content-type")).toContain("text/html");
    expect(await crossSite.text()).toMatch(/sent from another site, so nothing was granted/);
    // The handle was not consumed: the member's own answer from this site still completes the grant.
    const sameSite = await approve(jar, html, ["orders.read"]);
    expect(sameSite.status).toBe(302);
    const code = new URL(sameSite.headers.get("location")!).searchParams.get("code")!;
    expect((await exchangeCode(client, code, verifier)).status).toBe(200);
  });

  it("refuses an approval with Sec-Fetch-Site: cross-site and no Origin, and one with neither header", async () => {
    const client = await registerClient();
    const { jar, page } = await openConsent("ana", client, "orders.read");
    const html = await page.text();
    for (const headers of [
      { ...FORM_ONLY, "Sec-Fetch-Site": "cross-site" },
      { ...FORM_ONLY, "Sec-Fetch-Site": "same-site" },
      FORM_ONLY,
    ]) {
      const res = await approve(jar, html, ["orders.read"], headers);
      expect(res.status).toBe(403);
      expect(res.headers.get("location")).toBeNull();
    }
  });

  it("accepts a same-origin answer declared by Sec-Fetch-Site alone", async () => {
    const client = await registerClient();
    const { jar, page } = await openConsent("ana", client, "orders.read");
    const res = await approve(jar, await page.text(), ["orders.read"], {
      ...FORM_ONLY,
      "Sec-Fetch-Site": "same-origin",
    });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("location")!).searchParams.get("code")).toBeTruthy();
  });

  it("refuses a cross-site Deny too (a foreign page cannot end the member's consent either)", async () => {
    const client = await registerClient();
    const { jar, page } = await openConsent("ana", client);
    const form = new URLSearchParams({ handle: consentHandle(await page.text()), decision: "deny" });
    const res = await browserFetch(jar, "/authorize", {
      method: "POST",
      body: form,
      headers: { ...FORM_ONLY, Origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
  });
});

describe("unknown scopes", () => {
  function errorRedirect(res: Response): URL {
    expect(res.status).toBe(302);
    return new URL(res.headers.get("location")!);
  }

  it("sends a request for a scope that does not exist back to the client with invalid_scope, before sign-in", async () => {
    const client = await registerClient();
    const { challenge } = await pkcePair();
    const res = await browserFetch(
      new CookieJar(),
      authorizeUrl(client, challenge, { scope: "orders.raed", state: "keep-me" }),
    );
    const location = errorRedirect(res);
    expect(`${location.origin}${location.pathname}`).toBe("https://client.example/callback");
    expect(location.searchParams.get("error")).toBe("invalid_scope");
    expect(location.searchParams.get("state")).toBe("keep-me");
    expect(location.searchParams.get("iss")).toBe(BASE);
    expect(location.searchParams.get("error_description")).toMatch(/^Unknown scope: orders\.raed\. /);
    expect(location.searchParams.get("code")).toBeNull();
  });

  it("refuses known and unknown scopes together, naming only the unknown ones, also when signed in", async () => {
    const client = await registerClient();
    const { page } = await openConsent("ana", client, "orders.read bogus.one contracts.read bogus.two");
    const location = errorRedirect(page);
    expect(location.searchParams.get("error")).toBe("invalid_scope");
    expect(location.searchParams.get("error_description")).toMatch(/^Unknown scopes: bogus\.one, bogus\.two\. /);
    expect(location.searchParams.get("state")).toBe("state-123");
  });

  it("bounds and cleans the names it echoes: scope-token characters only, each cut, at most five listed", async () => {
    const client = await registerClient();
    const hostile = ['<script>"x"\\', "\u202Eevil", "a".repeat(500), "s4", "s5", "s6", "s7"].join(" ");
    const { page } = await openConsent("ana", client, hostile);
    const description = errorRedirect(page).searchParams.get("error_description")!;
    expect(description).toMatch(/^[\x20\x21\x23-\x5B\x5D-\x7E]+$/);
    expect(description).toContain("<script>x, evil, ");
    expect(description).toContain(`${"a".repeat(64)}..., s4, s5 and 2 more.`);
    expect(description.length).toBeLessThan(300);
  });

  it("keeps today's page for scopes that exist but the role cannot grant, or that belong to the other resource", async () => {
    const client = await registerClient();
    const { page } = await openConsent("mia", client, "orders.read orders.pii keys.admin");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(checkboxes(html).requested).toEqual(["orders.read"]);
    expect(html).toMatch(/Your role cannot grant:.*orders\.pii.*keys\.admin/s);
  });

  it("shows an error page, never a redirect, when the redirect URI is not the client's", async () => {
    const client = await registerClient();
    const { challenge } = await pkcePair();
    const res = await browserFetch(
      new CookieJar(),
      authorizeUrl(client, challenge, { scope: "orders.raed", redirectUri: "https://evil.example/callback" }),
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });
});

describe("client names on the consent page", () => {
  it("neutralises bidi overrides and control characters in a registered name", async () => {
    const client = await registerClient({ client_name: "\u202Eelgoog\u202C Drive\u2066\u200F\u0007 Sync" });
    const { page } = await openConsent("ana", client);
    const html = await page.text();
    expect(html).toContain('<span id="client-name">elgoog Drive Sync</span>');
    expect(html).toContain("<title>Authorize elgoog Drive Sync");
    expect(html).not.toMatch(UNSAFE);
  });

  it("falls back to the client id when nothing printable is left of the name", async () => {
    const client = await registerClient({ client_name: "\u202E\u2066\u200E" });
    const { page } = await openConsent("ana", client);
    expect(await page.text()).toContain(`<span id="client-name">${client.client_id}</span>`);
  });

  it("gives a CIMD client's published name the same treatment, cut to 200 characters", async () => {
    const jar = new CookieJar();
    await devSignIn(jar, "ana");
    const { challenge } = await pkcePair();
    const url = `${BASE}/authorize?${new URLSearchParams({ response_type: "code", client_id: CIMD_BIDI_CLIENT_ID, redirect_uri: "https://bidi.arbiter-test.example/callback", code_challenge: challenge, code_challenge_method: "S256", state: "s", resource: MCP_URL })}`;
    const page = await browserFetch(jar, url);
    expect(page.status).toBe(200);
    const html = await page.text();
    const shown = /<span id="client-name">([^<]*)<\/span>/.exec(html)![1]!;
    expect(shown.startsWith("evil.example Helper App zzz")).toBe(true);
    expect([...shown].length).toBe(201);
    expect(shown.endsWith("\u2026")).toBe(true);
    expect(html).not.toMatch(UNSAFE);
  });
});

describe("sensitive scopes, more scopes, lifetime and switching account", () => {
  it("marks personal-data, write and admin scopes as sensitive with the reason, and never ticks them", async () => {
    const client = await registerClient();
    const { page } = await openConsent(
      "ana",
      client,
      "orders.read orders.search orders.pii contracts.write audit.read",
    );
    const html = await page.text();
    const boxes = checkboxes(html);
    expect(boxes.requested).toEqual(["orders.read", "orders.search", "orders.pii", "contracts.write", "audit.read"]);
    expect(boxes.checked).toEqual(["orders.read", "orders.search"]);
    const text = visible(html);
    expect(text).toContain("orders.pii sensitive");
    expect(text).toContain("Sensitive: personal data: customer names unmasked. Not ticked for you");
    expect(text).toContain("Sensitive: changes data: contract versions, which is active, and accepted breaks.");
    expect(text).toContain("Sensitive: administration: the whole organization's audit trail.");
    expect(html).toMatch(/value="orders\.pii" data-requested aria-describedby="why-orders\.pii">/);
    expect(text).not.toMatch(/orders\.search sensitive/);
  });

  it("offers, unticked, every other scope the role may grant for the resource, and grants the ticked ones at once", async () => {
    const client = await registerClient();
    const { jar, page, verifier } = await openConsent("ana", client, "orders.read contracts.read");
    const html = await page.text();
    const boxes = checkboxes(html);
    expect(boxes.checked).toEqual(["orders.read", "contracts.read"]);
    // MCP scopes an administrator may grant; REST-only scopes (keys.admin, snapshots.write) and offline_access are not offered.
    expect(boxes.more).toEqual(["orders.search", "orders.pii", "orders.write", "contracts.write", "audit.read"]);
    expect(visible(html)).toContain("More permissions your role may grant");
    const approved = await approve(jar, html, [
      "orders.read",
      "contracts.read",
      "orders.search",
      "audit.read",
      "orders.pii",
    ]);
    const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
    const tokens = (await (await exchangeCode(client, code, verifier)).json()) as { scope: string };
    expect(tokens.scope.split(" ").sort()).toEqual([
      "audit.read",
      "contracts.read",
      "orders.pii",
      "orders.read",
      "orders.search",
    ]);

    const member = await openConsent("mia", await registerClient(), "orders.read");
    expect(checkboxes(await member.page.text()).more).toEqual(["orders.search", "contracts.read"]);
  });

  it("states how long the grant lasts, with and without offline_access", async () => {
    const client = await registerClient();
    const short = visible(await (await openConsent("mia", client, "orders.read")).page.text());
    expect(short).toContain(
      "How long: each access token lasts 1 hour. No refresh token is issued (the app did not ask for offline_access): access ends after 1 hour and the app must ask you again.",
    );
    const long = visible(await (await openConsent("mia", client, "orders.read offline_access")).page.text());
    expect(long).toContain(
      "With offline_access the app also gets a refresh token and stays connected for up to 30 days without asking you again.",
    );
  });

  it('"Not you?" signs out and back in to the same authorization request', async () => {
    const client = await registerClient();
    const jar = new CookieJar();
    const { page } = await openConsent("mia", client, "orders.read", jar);
    const html = await page.text();
    const href = decode(/id="switch-account" href="([^"]+)"/.exec(html)![1]!);
    const signedOut = await browserFetch(jar, href);
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get("set-cookie")).toMatch(/__Host-arbiter-session=;.*Max-Age=0/);
    const signin = new URL(signedOut.headers.get("location")!, BASE);
    expect(signin.pathname).toBe("/signin");
    const returnTo = signin.searchParams.get("return")!;
    expect(returnTo).toMatch(/^\/authorize\?/);
    expect(new URL(returnTo, BASE).searchParams.get("client_id")).toBe(client.client_id);
    // Signed out: the authorization request now goes to sign-in; another user signs in and sees their own page.
    expect((await browserFetch(jar, returnTo)).status).toBe(302);
    const back = await devSignIn(jar, "ana", returnTo);
    expect(back.headers.get("location")).toBe(returnTo);
    const again = await browserFetch(jar, returnTo);
    expect(visible(await again.text())).toContain("Signed in as Ana Admin");
  });

  it("names the application on the sign-in page, from its registration and never from the URL", async () => {
    const client = await registerClient({ client_name: "Claude Desktop Test" });
    const { challenge } = await pkcePair();
    const url = new URL(authorizeUrl(client, challenge));
    const signin = await browserFetch(
      new CookieJar(),
      `/signin?return=${encodeURIComponent(url.pathname + url.search)}`,
    );
    const text = visible(await signin.text());
    expect(text).toContain(
      "Sign in to continue to Claude Desktop Test (a name the app chose for itself, not verified), which asks to use Arbiter for you.",
    );
    const unknown = await browserFetch(
      new CookieJar(),
      `/signin?return=${encodeURIComponent("/authorize?client_id=nobody&client_name=Google")}`,
    );
    expect(await unknown.text()).not.toContain("requesting-app");
  });
});

function decode(value: string): string {
  return value.replace(/&#(\d+);/g, (_m, code) => String.fromCharCode(Number(code))).replace(/&amp;/g, "&");
}

function visible(html: string): string {
  return decode(html.replace(/<[^>]+>/g, " ")).replace(/\s+/g, " ");
}
