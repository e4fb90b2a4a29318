// The connectors people actually use: Claude and ChatGPT register with Dynamic Client Registration and their
// fixed redirect URIs; CIMD clients present a metadata document URL as client_id. Each request below mirrors
// what those clients send (public client, PKCE S256, resource indicator, offline_access for refresh).
import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import { CIMD_CLIENT_ID, CIMD_LOOPBACK_CLIENT_ID } from "../../fixtures/cimd-documents";
import { BASE, CookieJar, MCP_URL, browserFetch, consentHandle, devSignIn, pkcePair } from "../helpers";

interface Connector {
  name: string;
  registration: Record<string, unknown>;
  redirectUri: string;
}

const connectors: Connector[] = [
  {
    name: "Claude (claude.ai)",
    redirectUri: "https://claude.ai/api/mcp/auth_callback",
    registration: {
      client_name: "Claude",
      redirect_uris: ["https://claude.ai/api/mcp/auth_callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "orders.read contracts.read offline_access",
    },
  },
  {
    name: "Claude (claude.com)",
    redirectUri: "https://claude.com/api/mcp/auth_callback",
    registration: {
      client_name: "Claude",
      redirect_uris: ["https://claude.com/api/mcp/auth_callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    },
  },
  {
    name: "ChatGPT",
    redirectUri: "https://chatgpt.com/connector_platform_oauth_redirect",
    registration: {
      client_name: "ChatGPT",
      redirect_uris: ["https://chatgpt.com/connector_platform_oauth_redirect"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_post",
    },
  },
];

async function consentAndCode(
  jar: CookieJar,
  authorize: string,
  expectedRedirect: string,
): Promise<{ code: string; page: string }> {
  const page = await browserFetch(jar, authorize);
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
  expect(`${location.origin}${location.pathname}`).toBe(expectedRedirect);
  return { code: location.searchParams.get("code")!, page: body };
}

describe.each(connectors)("$name", ({ registration, redirectUri }) => {
  it("registers, authorizes with its redirect URI and exchanges the code for MCP tokens", async () => {
    const reg = await SELF.fetch(`${BASE}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(registration),
    });
    expect(reg.status).toBe(201);
    const client = (await reg.json()) as { client_id: string; client_secret?: string };

    const jar = new CookieJar();
    await devSignIn(jar, "dev");
    const { verifier, challenge } = await pkcePair();
    const authorize = `${BASE}/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "opaque-state",
      scope: "orders.read contracts.read offline_access",
      resource: MCP_URL,
    })}`;
    const { code, page } = await consentAndCode(jar, authorize, redirectUri);
    expect(page).toContain(new URL(redirectUri).hostname);

    const body = new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: client.client_id,
      resource: MCP_URL,
    });
    if (client.client_secret) body.set("client_secret", client.client_secret);
    const token = await SELF.fetch(`${BASE}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body,
    });
    expect(token.status).toBe(200);
    const tokens = (await token.json()) as { access_token: string; refresh_token: string; scope: string };
    expect(tokens.scope.split(" ").sort()).toEqual(["contracts.read", "offline_access", "orders.read"]);
    expect(tokens.refresh_token).toBeTruthy();

    const refresh = new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    if (client.client_secret) refresh.set("client_secret", client.client_secret);
    expect(
      (
        await SELF.fetch(`${BASE}/oauth/token`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: refresh,
        })
      ).status,
    ).toBe(200);
  });
});

describe("Client ID Metadata Documents", () => {
  it("authorizes a CIMD client: its verified domain is shown and the token exchange works", async () => {
    const jar = new CookieJar();
    await devSignIn(jar, "ana");
    const { verifier, challenge } = await pkcePair();
    const redirectUri = "https://app.arbiter-test.example/oauth/callback";
    const authorize = `${BASE}/authorize?${new URLSearchParams({ response_type: "code", client_id: CIMD_CLIENT_ID, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: "S256", state: "s", scope: "orders.read", resource: MCP_URL })}`;
    const { code, page } = await consentAndCode(jar, authorize, redirectUri);
    expect(page).toContain('id="client-domain">app.arbiter-test.example<');
    expect(page).toContain("Metadata App");
    const token = await SELF.fetch(`${BASE}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: CIMD_CLIENT_ID,
        resource: MCP_URL,
      }),
    });
    expect(token.status).toBe(200);
  });

  it("warns when a CIMD client sends access to a loopback redirect", async () => {
    const jar = new CookieJar();
    await devSignIn(jar, "ana");
    const { challenge } = await pkcePair();
    const authorize = `${BASE}/authorize?${new URLSearchParams({ response_type: "code", client_id: CIMD_LOOPBACK_CLIENT_ID, redirect_uri: "http://127.0.0.1:33418/callback", code_challenge: challenge, code_challenge_method: "S256", state: "s", resource: MCP_URL })}`;
    const page = await browserFetch(jar, authorize);
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain('id="loopback-warning"');
    expect(body).toContain('id="redirect-host">127.0.0.1<');
  });

  it("shows an error page (no redirect) for a CIMD client whose document cannot be fetched", async () => {
    const jar = new CookieJar();
    await devSignIn(jar, "ana");
    const { challenge } = await pkcePair();
    const authorize = `${BASE}/authorize?${new URLSearchParams({ response_type: "code", client_id: "https://missing.arbiter-test.invalid/client.json", redirect_uri: "https://missing.arbiter-test.invalid/cb", code_challenge: challenge, code_challenge_method: "S256", state: "s", resource: MCP_URL })}`;
    const page = await browserFetch(jar, authorize);
    expect(page.status).toBe(400);
    expect(page.headers.get("location")).toBeNull();
  });
});
