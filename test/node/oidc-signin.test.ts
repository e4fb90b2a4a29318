/**
 * OpenID Connect sign-in end to end: a real `wrangler dev` of the Worker signs users in at a real
 * OpenID Connect provider (oidc-provider) on loopback, driven over HTTP like a browser: an OAuth client
 * registered at Arbiter sends the user to /authorize, Arbiter sends them to the provider, the provider's
 * login and consent interactions run, the provider sends them back, and Arbiter's consent page names the
 * organization. Tampered ID tokens come from a real proxy in front of the provider's token endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeJwt, generateKeyPair, SignJWT, UnsecuredJWT, type JWTPayload } from "jose";
import { HttpBrowser, locationOf } from "../helpers/http-browser";
import { redeemCode } from "../helpers/oauth-http";
import { startTestProvider, type TestProvider } from "../helpers/oidc-test-provider";
import { freePort, startWranglerDev, type WranglerDev } from "../helpers/wrangler-dev";

const CLIENT_ID = "arbiter-e2e";
const CLIENT_SECRET = `e2e-secret-${crypto.randomUUID()}`;
const SESSION_SECRET = `e2e-session-secret-${crypto.randomUUID()}`;
const CLIENT_REDIRECT = "https://client.example/callback";
const OPERATOR_KEY = `e2e-operator-${crypto.randomUUID()}`;

let provider: TestProvider;
let worker: WranglerDev;

beforeAll(async () => {
  const port = await freePort();
  provider = await startTestProvider({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUris: [`http://localhost:${port}/signin/oidc/callback`],
    customClaims: ["org", "role"],
    accounts: {
      // The org claim wins over the e-mail domain (acme.example would say acme).
      gina: {
        claims: {
          name: "Gina Globex",
          email: "gina@acme.example",
          email_verified: true,
          org: "globex",
          role: "developer",
        },
      },
      alice: { claims: { name: "Alice Acme", email: "alice@acme.example", email_verified: true, org: "acme" } },
      bob: { claims: { name: "Bob Globex", email: "bob@globex.example", email_verified: true, role: "no-such-role" } },
      eve: { claims: { name: "Eve Unverified", email: "eve@acme.example", email_verified: false } },
      carol: {
        claims: { name: "Carol Initech", email: "carol@initech.example", email_verified: true, org: "initech" },
      },
      // An administrator on acme's member list (the last describe block puts her there), and someone whose
      // provider lets them type her address without proving it.
      dora: {
        claims: { name: "Dora Admin", email: "dora@acme.example", email_verified: true, org: "acme" },
      },
      // The same person through a second account at the provider (another subject, the same verified address).
      dora2: {
        claims: { name: "Dora Admin", email: "dora@acme.example", email_verified: true, org: "acme" },
      },
      mallory: {
        claims: { name: "Mallory Spoof", email: "dora@acme.example", email_verified: false, org: "acme" },
      },
      tom: {
        claims: { name: "Tom Thin", email: "tom@acme.example", email_verified: true, org: "acme", role: "analyst" },
        thinIdToken: true,
      },
      // Her address's domain is umbrella's, an organization that signs in with its own provider (the last block).
      uma: { claims: { name: "Uma Umbrella", email: "uma@umbrella.example", email_verified: true } },
    },
  });
  worker = await startWranglerDev({
    port,
    vars: {
      PUBLIC_URL: `http://localhost:${port}`,
      ARBITER_DEV_SIGN_IN: "false",
      SESSION_SECRET,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
      OIDC_ORG_CLAIM: "org",
      OIDC_ROLE_CLAIM: "role",
      ARBITER_OPERATOR_KEY: OPERATOR_KEY,
    },
  });
});

afterAll(async () => {
  const logs = worker?.logs() ?? "";
  await worker?.stop();
  await provider?.stop();
  // Checked after everything ran: the client secret and tokens never reach the Worker's logs.
  expect(logs).not.toContain(CLIENT_SECRET);
  expect(logs).not.toMatch(/eyJ[\w-]+\.eyJ/);
});

async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
  const verifier = b64(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

interface Journey {
  browser: HttpBrowser;
  /** The Worker's answer to the provider's redirect back (/signin/oidc/callback). */
  callback: Response;
  callbackUrl: string;
  /** The flow cookie as it was when the browser came back (to replay the callback). */
  flowCookie: string | undefined;
  /** Where the callback sent the browser next, fetched: the consent page on success. */
  next?: Response;
  verifier: string;
  /** The OAuth client registered at Arbiter for this journey. */
  clientId: string;
}

/**
 * Registers an OAuth client at Arbiter, starts its authorization, follows Arbiter to the provider, signs
 * in there as `account` (or aborts), consents, and follows the provider back to Arbiter's callback.
 */
async function signIn(
  account: string,
  options: { abortAtProvider?: boolean; resource?: string; scope?: string } = {},
): Promise<Journey> {
  const browser = new HttpBrowser();
  const registration = await fetch(`${worker.url}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: "OIDC e2e client",
      redirect_uris: [CLIENT_REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code"],
      response_types: ["code"],
    }),
  });
  expect(registration.status).toBe(201);
  const client = (await registration.json()) as { client_id: string };
  const { verifier, challenge } = await pkce();
  const authorize = `${worker.url}/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: CLIENT_REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "client-state",
    scope: options.scope ?? "orders.read",
    resource: options.resource ?? `${worker.url}/mcp`,
  })}`;

  let url = authorize;
  for (let hop = 0; hop < 20; hop++) {
    const onWorker = url.startsWith(worker.url);
    if (onWorker && new URL(url).pathname === "/signin/choose") {
      // Several sign-in methods (an organization with its own provider exists): this deployment's provider.
      const chooser = await (await browser.fetch(url)).text();
      url = new URL(/href="(\/signin\/oidc\?[^"]+)"/.exec(chooser)![1]!.replace(/&amp;/g, "&"), url).href;
      continue;
    }
    if (onWorker && new URL(url).pathname === "/signin/oidc/callback") {
      const flowCookie = browser.cookie(worker.url, "__Host-arbiter-oidc");
      const callback = await browser.fetch(url);
      const journey: Journey = {
        browser,
        callback,
        callbackUrl: url,
        flowCookie,
        verifier,
        clientId: client.client_id,
      };
      const next = locationOf(callback, url);
      if (callback.status === 303 && next) journey.next = await browser.fetch(next);
      return journey;
    }
    const response = await browser.fetch(url);
    const next = locationOf(response, url);
    if (response.status >= 300 && response.status < 400 && next) {
      url = next;
      continue;
    }
    expect(onWorker, `unexpected page at ${url}: ${response.status}`).toBe(false);
    expect(response.status).toBe(200);
    // The provider's development interactions: a login form, then a consent form.
    const page = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    expect(action, `no form on provider page ${url}`).toBeDefined();
    const submit = new URL(action!.replace(/&amp;/g, "&"), url).href;
    if (page.includes('name="prompt" value="login"')) {
      if (options.abortAtProvider) {
        url = `${submit}/abort`;
        continue;
      }
      const posted = await browser.postForm(submit, { prompt: "login", login: account, password: "any" });
      url = locationOf(posted, submit)!;
    } else {
      expect(page).toContain('name="prompt" value="consent"');
      const posted = await browser.postForm(submit, { prompt: "consent" });
      url = locationOf(posted, submit)!;
    }
  }
  throw new Error("sign-in did not come back to Arbiter within 20 hops");
}

/** The callback signed the user in and Arbiter's consent page shows who they are. */
async function expectSignedIn(journey: Journey, signedInAs: string): Promise<string> {
  expect(journey.callback.status).toBe(303);
  expect(journey.callback.headers.get("location")).toMatch(/^\/authorize\?/);
  expect(journey.browser.cookie(worker.url, "__Host-arbiter-session")).toBeDefined();
  // The one-time flow cookie is gone once used.
  expect(journey.browser.cookie(worker.url, "__Host-arbiter-oidc")).toBeUndefined();
  expect(journey.next?.status).toBe(200);
  const consent = await journey.next!.text();
  expect(consent).toContain(`Signed in as ${signedInAs}`);
  return consent;
}

/** The callback refused: a page with the given status and words, no session. */
async function expectRefused(journey: Journey, status: number, ...phrases: Array<string | RegExp>): Promise<string> {
  expect(journey.callback.status).toBe(status);
  expect(journey.callback.headers.get("content-type")).toContain("text/html");
  expect(journey.browser.cookie(worker.url, "__Host-arbiter-session")).toBeUndefined();
  const page = await journey.callback.text();
  for (const phrase of phrases) expect(page).toMatch(phrase);
  expect(page).not.toMatch(/\bat \S+ \(|Error:/); // no stack trace
  return page;
}

/** Approves the consent page a journey reached and redeems the code: an access token for `resource`. */
async function tokenOf(journey: Journey, consent: string, scope: string, resource: string): Promise<string> {
  const handle = /name="handle" value="([^"]+)"/
    .exec(consent)![1]!
    .replace(/&#(\d+);/g, (_m, c) => String.fromCharCode(Number(c)));
  const approved = await journey.browser.postForm(`${worker.url}/authorize`, { handle, decision: "approve", scope });
  expect(approved.status).toBe(302);
  const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
  const { clientId, verifier } = journey;
  return redeemCode(worker.url, { code, clientId, verifier, redirectUri: CLIENT_REDIRECT, resource });
}

describe("OIDC sign-in against a real provider", () => {
  it("signs in, takes the organization and role from claims, and the grant carries them", async () => {
    const api = `${worker.url}/api`;
    const journey = await signIn("gina", { resource: api, scope: "contracts.read" });
    // Organization from the org claim (globex), although the e-mail domain is acme's; role from the role claim.
    const consent = await expectSignedIn(journey, "Gina Globex (Globex Retail, role developer)");

    // Approve consent, redeem the code and ask the REST API who the token belongs to.
    const access_token = await tokenOf(journey, consent, "contracts.read", api);
    const whoami = await fetch(`${worker.url}/api/v1/whoami`, { headers: { Authorization: `Bearer ${access_token}` } });
    expect(whoami.status).toBe(200);
    expect(await whoami.json()).toMatchObject({
      organization: { id: "globex", name: "Globex Retail" },
      userId: "gina",
      role: "developer",
      scopes: ["contracts.read"],
    });
  });

  it("takes the organization from the verified e-mail domain when there is no org claim, with the default role for an unknown role claim", async () => {
    const journey = await signIn("bob");
    await expectSignedIn(journey, "Bob Globex (Globex Retail, role member)");
  });

  it("takes the organization from the claim, with the default role when there is no role claim", async () => {
    await expectSignedIn(await signIn("alice"), "Alice Acme (Acme Commerce, role member)");
  });

  it("reads claims from UserInfo when the provider keeps the ID token thin", async () => {
    await expectSignedIn(await signIn("tom"), "Tom Thin (Acme Commerce, role analyst)");
  });

  it("refuses a user whose organization is unknown, saying what to configure", async () => {
    const page = await expectRefused(
      await signIn("carol"),
      403,
      "not part of an organization",
      "initech",
      "initech.example",
      "claimValues",
      "emailDomains",
      "PATCH /operator/v1/organizations/{id}",
      "without a redeploy",
    );
    expect(page).not.toContain("Signed in as");
  });

  it("does not use the domain of an e-mail the provider marks unverified", async () => {
    await expectRefused(await signIn("eve"), 403, "not part of an organization", "not verified", /verify your e-mail/);
  });
});

/** Signs in as `account` with the provider's ID token passed through `tamper` first. */
async function signInTampered(account: string, tamper: (idToken: string) => Promise<string> | string) {
  provider.tamperIdToken(tamper);
  try {
    return await signIn(account);
  } finally {
    provider.tamperIdToken(undefined);
  }
}

/** Re-signs the provider's real ID token claims with `changes`, using `key` (default: the provider's own key). */
function resign(changes: (claims: JWTPayload) => JWTPayload, key?: { privateKey: CryptoKey }) {
  return async (idToken: string) => {
    const claims = changes(decodeJwt(idToken));
    return new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: provider.kid, typ: "JWT" })
      .sign(key?.privateKey ?? provider.signingKey);
  };
}

describe("ID tokens that fail verification are refused", () => {
  async function signInWithTamperedToken(tamper: (idToken: string) => Promise<string> | string): Promise<Journey> {
    return signInTampered("alice", tamper);
  }

  it("accepts a token the test re-signed with the provider's key and left unchanged (the tampering itself is sound)", async () => {
    await expectSignedIn(
      await signInWithTamperedToken(resign((claims) => claims)),
      "Alice Acme (Acme Commerce, role member)",
    );
  });

  it("refuses a bad signature", async () => {
    const impostor = await generateKeyPair("RS256");
    await expectRefused(
      await signInWithTamperedToken(resign((claims) => claims, impostor)),
      401,
      "signature does not match",
    );
  });

  it("refuses a token whose payload was altered after signing", async () => {
    const altered = (idToken: string) => {
      const [header, payload, signature] = idToken.split(".");
      const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as JWTPayload;
      return `${header}.${Buffer.from(JSON.stringify({ ...claims, org: "globex" })).toString("base64url")}.${signature}`;
    };
    await expectRefused(await signInWithTamperedToken(altered), 401, "signature does not match");
  });

  it("refuses the wrong issuer", async () => {
    await expectRefused(
      await signInWithTamperedToken(resign((claims) => ({ ...claims, iss: "https://evil.example" }))),
      401,
      "different issuer",
    );
  });

  it("refuses the wrong audience", async () => {
    await expectRefused(
      await signInWithTamperedToken(resign((claims) => ({ ...claims, aud: "some-other-client" }))),
      401,
      "different client",
    );
  });

  it("refuses the wrong nonce", async () => {
    await expectRefused(
      await signInWithTamperedToken(resign((claims) => ({ ...claims, nonce: "not-the-nonce-of-this-browser" }))),
      401,
      "nonce",
    );
  });

  it("refuses a subject too long to name its grants in KV, saying so", async () => {
    await expectRefused(
      await signInWithTamperedToken(resign((claims) => ({ ...claims, sub: `user|${"é".repeat(100)}` }))),
      401,
      "subject (sub) too long to store",
    );
  });

  it("refuses an expired token", async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(
      await signInWithTamperedToken(resign((claims) => ({ ...claims, iat: now - 7200, exp: now - 3600 }))),
      401,
      "has expired",
    );
  });

  it("refuses an unsigned token (alg none)", async () => {
    const unsigned = (idToken: string) => new UnsecuredJWT(decodeJwt(idToken)).encode();
    await expectRefused(await signInWithTamperedToken(unsigned), 401, "signing algorithm Arbiter does not accept");
  });
});

describe("provider errors and forged callbacks give clear pages", () => {
  it("shows that the user cancelled at the provider (error=access_denied)", async () => {
    await expectRefused(await signIn("alice", { abortAtProvider: true }), 400, "cancelled or refused", "access_denied");
  });

  it("shows that the token endpoint could not be reached", async () => {
    provider.dropTokenRequests(true);
    try {
      await expectRefused(await signIn("alice"), 502, "could not be reached", "token endpoint");
    } finally {
      provider.dropTokenRequests(false);
    }
  });

  it("shows the provider's refusal when a used code is replayed", async () => {
    const journey = await signIn("alice");
    await expectSignedIn(journey, "Alice Acme");
    const replay = new HttpBrowser();
    replay.setCookie(worker.url, "__Host-arbiter-oidc", journey.flowCookie!);
    const answer = await replay.fetch(journey.callbackUrl);
    await expectRefused({ ...journey, browser: replay, callback: answer }, 502, "invalid_grant", "already used");
  });

  it("ignores a callback whose state does not match this browser's sign-in", async () => {
    const journey = await signIn("alice");
    const forged = new URL(journey.callbackUrl);
    forged.searchParams.set("state", "attacker-state");
    const browser = new HttpBrowser();
    browser.setCookie(worker.url, "__Host-arbiter-oidc", journey.flowCookie!);
    const answer = await browser.fetch(forged.href);
    await expectRefused({ ...journey, browser, callback: answer }, 400, "does not match");
  });

  it("ignores a callback from a browser that never started a sign-in", async () => {
    const journey = await signIn("alice");
    const stranger = new HttpBrowser();
    const answer = await stranger.fetch(journey.callbackUrl);
    await expectRefused({ ...journey, browser: stranger, callback: answer }, 400, "no sign-in in progress");
  });

  it("refuses a flow cookie that was not signed by this server", async () => {
    const journey = await signIn("alice");
    const browser = new HttpBrowser();
    const [body] = journey.flowCookie!.split(".");
    browser.setCookie(
      worker.url,
      "__Host-arbiter-oidc",
      `${body}.${Buffer.from("forged-signature").toString("base64url")}`,
    );
    const answer = await browser.fetch(journey.callbackUrl);
    await expectRefused({ ...journey, browser, callback: answer }, 400, "no sign-in in progress");
  });

  it("starts the provider's authorization with PKCE S256, state and nonce, and a signed __Host- cookie", async () => {
    const start = await fetch(`${worker.url}/signin?return=${encodeURIComponent("/authorize?x=1")}`, {
      redirect: "manual",
    });
    expect(start.status).toBe(302);
    const target = new URL(start.headers.get("location")!);
    expect(target.origin).toBe(provider.issuer);
    expect(target.searchParams.get("code_challenge_method")).toBe("S256");
    expect(target.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(target.searchParams.get("state")).toMatch(/^[\w-]{43}$/);
    expect(target.searchParams.get("nonce")).toMatch(/^[\w-]{43}$/);
    expect(target.searchParams.get("redirect_uri")).toBe(`${worker.url}/signin/oidc/callback`);
    expect(target.searchParams.get("client_id")).toBe(CLIENT_ID);
    const cookie = start.headers.getSetCookie().find((c) => c.startsWith("__Host-arbiter-oidc="));
    expect(cookie).toMatch(/; Path=\/; Secure; HttpOnly; SameSite=Lax; Max-Age=600$/);
    // Nothing secret travels in the URL: no verifier, no client secret.
    expect(target.href).not.toContain(CLIENT_SECRET);
  });
});

describe("the member list trusts only what the provider vouches for", () => {
  const operator = (path: string, init: RequestInit = {}) =>
    fetch(`${worker.url}/operator/v1/organizations/acme${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${OPERATOR_KEY}`, "Content-Type": "application/json" },
    });

  it("matches only a verified address against the member list, and a removal follows the person to every account and address", async () => {
    const listed = await operator("/members/dora%40acme.example", {
      method: "PUT",
      body: JSON.stringify({ role: "admin" }),
    });
    expect(listed.status).toBe(200);
    // The listed administrator gets her listed role (the list is consulted at all), through either of her accounts
    // at the provider; each holds a token of its own.
    const api = `${worker.url}/api`;
    const tokens: string[] = [];
    for (const account of ["dora", "dora2"]) {
      const journey = await signIn(account, { resource: api, scope: "contracts.read" });
      const consent = await expectSignedIn(journey, "Dora Admin (Acme Commerce, role admin)");
      tokens.push(await tokenOf(journey, consent, "contracts.read", api));
    }
    const whoami = (token: string) =>
      fetch(`${worker.url}/api/v1/whoami`, { headers: { Authorization: `Bearer ${token}` } });
    for (const token of tokens) expect((await whoami(token)).status).toBe(200);

    // Someone whose provider marks the same address unverified is not her: the organization's default role.
    await expectSignedIn(await signIn("mallory"), "Mallory Spoof (Acme Commerce, role member)");
    const members = (await (await operator("/members")).json()) as {
      members: Array<{ email: string; role: string; subject?: string }>;
    };
    expect(members.members.find((m) => m.email === "dora@acme.example")).toMatchObject({
      role: "admin",
      subject: "dora2", // the last of her own accounts, not the spoofer's
    });

    // Only listed people: the refusal says why the unverified address could not be matched.
    const membersOnly = await operator("", { method: "PATCH", body: JSON.stringify({ membersOnly: true }) });
    expect(membersOnly.status).toBe(200);
    try {
      await expectRefused(await signIn("mallory"), 403, "admits only the people on its member list", "not verified");
    } finally {
      await operator("", { method: "PATCH", body: JSON.stringify({ membersOnly: false }) });
    }

    // Removed (another administrator first: the last one cannot be): refused, and still refused when her provider later sends another address for the same subject.
    const other = await operator("/members/owner%40acme.example", {
      method: "PUT",
      body: JSON.stringify({ role: "admin" }),
    });
    expect(other.status).toBe(200);
    const removal = await operator("/members/dora%40acme.example", { method: "DELETE" });
    expect(removal.status).toBe(200);
    expect(((await removal.json()) as { grantsRevoked: number }).grantsRevoked).toBe(2);
    // Both accounts' tokens end with the membership.
    for (const token of tokens) expect((await whoami(token)).status).toBe(401);
    await expectRefused(await signIn("dora"), 403, "You were removed from this organization");
    await expectRefused(
      await signInTampered(
        "dora",
        resign((claims) => ({ ...claims, email: "dora.personal@acme.example" })),
      ),
      403,
      "You were removed from this organization",
    );
  });
});

describe("an organization with its own provider", () => {
  it("is never entered through this deployment's provider, whatever the e-mail domain says", async () => {
    const created = await fetch(`${worker.url}/operator/v1/organizations`, {
      method: "POST",
      headers: { Authorization: `Bearer ${OPERATOR_KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        id: "umbrella",
        name: "Umbrella",
        emailDomains: ["umbrella.example"],
        membersOnly: false,
        signIn: { issuer: provider.issuer, clientId: "umbrella-at-its-provider" },
      }),
    });
    expect(created.status).toBe(201);
    const page = await expectRefused(
      await signIn("uma"),
      403,
      "Your organization signs in with its own identity provider",
      "belongs to the organization umbrella (by its e-mail domain)",
      "Sign in with your organization's account (work e-mail)",
    );
    expect(page).not.toContain("Signed in as");
    // Organizations without a provider of their own are reached as before.
    await expectSignedIn(await signIn("bob"), "Bob Globex (Globex Retail, role member)");
  });
});
