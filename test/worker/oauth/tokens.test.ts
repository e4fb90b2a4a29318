// Registration, authorization code + PKCE, refresh, revocation, expiry and audience separation, end to end
// against the Worker's real authorization server and KV.
import { env } from "cloudflare:test";
import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import {
  API_RESOURCE,
  BASE,
  CookieJar,
  MCP_URL,
  authorizeUrl,
  browserFetch,
  consentHandle,
  devSignIn,
  exchangeCode,
  initializeSession,
  mcpPost,
  obtainTokens,
  pkcePair,
  registerClient,
  rpc,
  type RegisteredClient,
} from "../helpers";

async function codeFor(
  client: RegisteredClient,
  challenge: string,
  options: { scope?: string; resource?: string; redirectUri?: string } = {},
): Promise<string> {
  const jar = new CookieJar();
  await devSignIn(jar, "ana");
  const page = await browserFetch(jar, authorizeUrl(client, challenge, options));
  expect(page.status).toBe(200);
  const body = await page.text();
  const form = new URLSearchParams({ handle: consentHandle(body), decision: "approve" });
  for (const m of body.matchAll(/name="scope" value="([^"]+)" data-requested/g)) form.append("scope", m[1]!);
  const approved = await browserFetch(jar, "/authorize", {
    method: "POST",
    body: form,
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
  });
  expect(approved.status).toBe(302);
  const location = new URL(approved.headers.get("location")!);
  expect(location.searchParams.get("iss")).toBe(BASE);
  expect(location.searchParams.get("state")).toBe("state-123");
  return location.searchParams.get("code")!;
}

function tokenRequest(params: Record<string, string>): Promise<Response> {
  return SELF.fetch(`${BASE}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params),
  });
}

async function whoami(token: string): Promise<Response> {
  return mcpPost(token, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
}

describe("Dynamic Client Registration", () => {
  it("registers a public client and returns its metadata", async () => {
    const client = await registerClient({ client_name: "Registered App" });
    expect(client.client_id).toMatch(/.+/);
    expect(client.client_name).toBe("Registered App");
    expect(client.client_secret).toBeUndefined();
  });

  it("refuses a registration with a javascript: redirect URI", async () => {
    const res = await SELF.fetch(`${BASE}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        client_name: "Evil",
        redirect_uris: ["javascript:alert(1)"],
        token_endpoint_auth_method: "none",
      }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string };
    expect(["invalid_redirect_uri", "invalid_client_metadata"]).toContain(body.error);
  });

  it("refuses malformed registration JSON with a 400, not a 500", async () => {
    const res = await SELF.fetch(`${BASE}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{not json",
    });
    expect(res.status).toBe(400);
  });
});

describe("authorization code with PKCE", () => {
  it("issues an access and refresh token bound to the MCP resource", async () => {
    const client = await registerClient();
    const { verifier, challenge } = await pkcePair();
    const code = await codeFor(client, challenge, { scope: "orders.read offline_access" });
    const res = await exchangeCode(client, code, verifier);
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as Record<string, unknown>;
    expect(tokens.token_type).toMatch(/bearer/i);
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.scope).toBe("orders.read offline_access");
    expect(tokens.resource).toBe(MCP_URL);
  });

  it("refuses a PKCE verifier that does not match the challenge", async () => {
    const client = await registerClient();
    const { challenge } = await pkcePair();
    const code = await codeFor(client, challenge);
    const wrong = await pkcePair();
    const res = await exchangeCode(client, code, wrong.verifier);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("refuses an authorization request without PKCE from a public client", async () => {
    const client = await registerClient();
    const jar = new CookieJar();
    await devSignIn(jar, "ana");
    const url = new URL(authorizeUrl(client, "x"));
    url.searchParams.delete("code_challenge");
    url.searchParams.delete("code_challenge_method");
    const res = await browserFetch(jar, url.toString());
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.origin + location.pathname).toBe(client.redirect_uris[0]);
    expect(location.searchParams.get("error")).toBe("invalid_request");
  });

  it("refuses a replayed authorization code", async () => {
    const client = await registerClient();
    const { verifier, challenge } = await pkcePair();
    const code = await codeFor(client, challenge);
    expect((await exchangeCode(client, code, verifier)).status).toBe(200);
    const replay = await exchangeCode(client, code, verifier);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("never redirects to an unregistered redirect URI: the error is shown on our page", async () => {
    const client = await registerClient();
    const jar = new CookieJar();
    await devSignIn(jar, "ana");
    const { challenge } = await pkcePair();
    const res = await browserFetch(
      jar,
      authorizeUrl(client, challenge, { redirectUri: "https://attacker.example/steal" }),
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).toMatch(/redirect/i);
  });

  it("refuses a token request whose redirect_uri differs from the authorization request", async () => {
    const client = await registerClient({
      redirect_uris: ["https://client.example/callback", "https://client.example/other"],
    });
    const { verifier, challenge } = await pkcePair();
    const code = await codeFor(client, challenge);
    const res = await exchangeCode(client, code, verifier, "https://client.example/other");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("refuses an unknown client id on our own page", async () => {
    const jar = new CookieJar();
    await devSignIn(jar, "ana");
    const { challenge } = await pkcePair();
    const res = await browserFetch(
      jar,
      authorizeUrl({ client_id: "nope", redirect_uris: ["https://client.example/callback"] }, challenge),
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });
});

describe("refresh, revocation and expiry", () => {
  it("refreshes (rotating the refresh token) and the new access token works", async () => {
    const { tokens, client } = await obtainTokens({ scope: "orders.read offline_access" });
    const res = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: client.client_id,
    });
    expect(res.status).toBe(200);
    const next = (await res.json()) as { access_token: string; refresh_token: string };
    expect(next.access_token).not.toBe(tokens.access_token);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect((await whoami(next.access_token)).status).toBe(200);
  });

  it("refresh can narrow but not widen scopes: a wider one is invalid_scope naming the extra scope (RFC 6749 section 6)", async () => {
    const { tokens, client } = await obtainTokens({ scope: "orders.read offline_access" });
    const wider = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: client.client_id,
      scope: "orders.read orders.pii",
    });
    expect(wider.status).toBe(400);
    const refusal = (await wider.json()) as { error: string; error_description: string };
    expect(refusal.error).toBe("invalid_scope");
    expect(refusal.error_description).toContain("orders.pii");
    const narrower = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: client.client_id,
      scope: "orders.read",
    });
    expect(narrower.status).toBe(200);
    expect(((await narrower.json()) as { scope: string }).scope).toBe("orders.read");
  });

  it("a widening refresh cannot skip the check with a body it cannot read: over 64 KiB, not UTF-8, or an unusual media type spelling", async () => {
    const { tokens, client } = await obtainTokens({ scope: "orders.read offline_access" });
    const widening = {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: client.client_id,
      scope: "orders.read orders.pii",
    };
    const post = (body: BodyInit, contentType = "application/x-www-form-urlencoded") =>
      SELF.fetch(`${BASE}/oauth/token`, { method: "POST", headers: { "Content-Type": contentType }, body });

    const padded = await post(`${new URLSearchParams(widening)}&padding=${"a".repeat(70 * 1024)}`);
    expect(padded.status).toBe(400);
    expect(await padded.json()).toMatchObject({
      error: "invalid_request",
      error_description: expect.stringContaining("larger than 65536 bytes"),
    });

    const latin1 = new TextEncoder().encode(`${new URLSearchParams(widening)}&note=`);
    const notUtf8 = await post(new Uint8Array([...latin1, 0xe9, 0xff]));
    expect(notUtf8.status).toBe(400);
    expect(await notUtf8.json()).toMatchObject({
      error: "invalid_request",
      error_description: expect.stringContaining("not UTF-8"),
    });

    const spelled = await post(
      new URLSearchParams(widening).toString(),
      "  Application/X-WWW-Form-Urlencoded ; charset=utf-8",
    );
    expect(spelled.status).toBe(400);
    expect(await spelled.json()).toMatchObject({ error: "invalid_scope" });

    // The grant is untouched: an ordinary refresh still works and keeps its scopes.
    const refresh = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: client.client_id,
    });
    expect(refresh.status).toBe(200);
    expect(((await refresh.json()) as { scope: string }).scope).toBe("orders.read offline_access");
  });

  it("a revoked access token stops working (RFC 7009)", async () => {
    const { tokens, client } = await obtainTokens({ scope: "orders.read" });
    expect((await whoami(tokens.access_token)).status).toBe(200);
    const revoke = await tokenRequest({
      token: tokens.access_token,
      token_type_hint: "access_token",
      client_id: client.client_id,
    });
    expect(revoke.status).toBe(200);
    const after = await whoami(tokens.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("revoking the refresh token ends the grant: refresh fails and access stops", async () => {
    const { tokens, client } = await obtainTokens({ scope: "orders.read offline_access" });
    const revoke = await tokenRequest({
      token: tokens.refresh_token!,
      token_type_hint: "refresh_token",
      client_id: client.client_id,
    });
    expect(revoke.status).toBe(200);
    const refresh = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: client.client_id,
    });
    expect(refresh.status).toBe(400);
    expect((await whoami(tokens.access_token)).status).toBe(401);
  });

  it("an expired access token is refused with invalid_token", async () => {
    const { tokens } = await obtainTokens({ scope: "orders.read" });
    const [userId, grantId] = tokens.access_token.split(":");
    const listed = await env.OAUTH_KV.list({ prefix: `token:${userId}:${grantId}:` });
    expect(listed.keys.length).toBe(1);
    const key = listed.keys[0]!.name;
    const record = (await env.OAUTH_KV.get(key, "json")) as { expiresAt: number };
    await env.OAUTH_KV.put(key, JSON.stringify({ ...record, expiresAt: Math.floor(Date.now() / 1000) - 5 }));
    const res = await whoami(tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });
});

describe("audience separation", () => {
  it("an MCP token is refused by the REST API", async () => {
    const { tokens } = await obtainTokens({ scope: "orders.read contracts.read" });
    const res = await SELF.fetch(`${BASE}/api/v1/whoami`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("a REST API token is refused by /mcp, and works on the REST API", async () => {
    const { tokens } = await obtainTokens({ scope: "contracts.read", resource: API_RESOURCE });
    const mcp = await whoami(tokens.access_token);
    expect(mcp.status).toBe(401);
    const api = await SELF.fetch(`${BASE}/api/v1/whoami`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(api.status).toBe(200);
    const body = (await api.json()) as { restQuota: { limit: number; remaining: number } };
    expect(body).toMatchObject({
      organization: { id: "acme" },
      scopes: ["contracts.read"],
      restQuota: { limit: 120, windowSeconds: 60 },
    });
    expect(body.restQuota.remaining).toBe(119);
  });

  it("an MCP token works for the MCP session it is bound to", async () => {
    const { tokens } = await obtainTokens({ scope: "orders.read" });
    const session = await initializeSession(tokens.access_token);
    const reply = await rpc(tokens.access_token, session, "tools/call", { name: "whoami", arguments: {} });
    expect(reply.result.structuredContent.scopes).toEqual(["orders.read"]);
  });
});

describe("offline_access", () => {
  it("issues a refresh token only when offline_access is granted", async () => {
    const without = await obtainTokens({ scope: "orders.read" });
    expect(without.tokens.refresh_token).toBeUndefined();
    const withOffline = await obtainTokens({ scope: "orders.read offline_access" });
    expect(withOffline.tokens.refresh_token).toBeTruthy();
  });
});
