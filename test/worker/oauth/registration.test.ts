// Dynamic Client Registration limits (issue 9, item 11): bounded names and redirect URI lists, and only
// exact, canonical redirect URIs. Each refusal is an RFC 7591 §3.2.2 error with a description that says
// what to change; nothing is stored. The connectors people use still register (connectors.test.ts runs them).
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import { apiResourceHandler } from "../../../src/api";
import { mcpResourceHandler } from "../../../src/mcp/http";
import { getOAuthServers } from "../../../src/oauth/servers";
import { BASE } from "../helpers";

const CLAUDE = "https://claude.ai/api/mcp/auth_callback";
const CHATGPT = "https://chatgpt.com/connector_platform_oauth_redirect";

async function register(metadata: Record<string, unknown>): Promise<{ status: number; body: Record<string, any> }> {
  const response = await SELF.fetch(`${BASE}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: "Limits",
      redirect_uris: [CLAUDE],
      token_endpoint_auth_method: "none",
      ...metadata,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe("registration limits", () => {
  it("refuses a client_name over 200 characters, and accepts one of exactly 200", async () => {
    const long = await register({ client_name: "x".repeat(100_000) });
    expect(long.status).toBe(400);
    expect(long.body.error).toBe("invalid_client_metadata");
    expect(long.body.error_description).toBe(
      "client_name is 100000 characters long; the limit is 200. Register a shorter name.",
    );
    expect((await register({ client_name: "é".repeat(200) })).status).toBe(201);
    const localized = await register({ "client_name#ja": "名".repeat(201) });
    expect(localized.status).toBe(400);
    expect(localized.body.error_description).toContain("client_name#ja is 201 characters long");
  });

  it("refuses more than 10 redirect URIs, and accepts 10", async () => {
    const uris = (n: number) => Array.from({ length: n }, (_, i) => `https://app.example/cb/${i}`);
    const many = await register({ redirect_uris: uris(500) });
    expect(many.status).toBe(400);
    expect(many.body.error).toBe("invalid_redirect_uri");
    expect(many.body.error_description).toContain("500 redirect_uris were given; the limit is 10");
    const ten = await register({ redirect_uris: uris(10) });
    expect(ten.status).toBe(201);
    expect(ten.body.redirect_uris).toEqual(uris(10));
  });

  it.each([
    [" https://app.example/cb", "contains whitespace or a control character"],
    ["https://app.example/cb ", "contains whitespace or a control character"],
    ["https://app.example/c b", "contains whitespace or a control character"],
    ["https://*.app.example/cb", 'contains "*": wildcards are not supported'],
    ["https://app.example/cb/*", 'contains "*": wildcards are not supported'],
    ["https://app.example/cb#", "contains a fragment"],
    ["/relative/callback", "is not an absolute URI"],
    ["HTTPS://App.Example/cb", 'is not in canonical form; it reads as "https://app.example/cb"'],
    ["https://app.example:443/cb", 'is not in canonical form; it reads as "https://app.example/cb"'],
    ["https://app.example/a/../cb", 'is not in canonical form; it reads as "https://app.example/cb"'],
    ["https://app.example/cb\u202Ecod.exe", "is not in canonical form"],
    ["http://app.example/cb", "uses http on a host that is not loopback"],
  ])("refuses %j with invalid_redirect_uri (%s)", async (uri, reason) => {
    const { status, body } = await register({ redirect_uris: [CLAUDE, uri] });
    expect(status).toBe(400);
    expect(body.error).toBe("invalid_redirect_uri");
    expect(body.error_description).toMatch(/^redirect_uris\[1\] "/);
    expect(body.error_description).toContain(reason);
    // The URI is quoted with anything but printable ASCII escaped, so the description cannot mislead either.
    expect(body.error_description).not.toMatch(/[^\x20-\x7E]/);
  });

  it("accepts canonical https and loopback URIs, a bare origin, and Cursor's private-use callback beside them", async () => {
    const accepted = [
      "https://app.example",
      "https://app.example/cb?tenant=1",
      "http://127.0.0.1:33418/callback",
      "http://localhost/cb",
      "http://[::1]:8080/cb",
      "cursor://anysphere.cursor-mcp/oauth/callback",
    ];
    const { status, body } = await register({ redirect_uris: accepted });
    expect(status).toBe(201);
    expect(body.redirect_uris).toEqual(accepted);
  });

  it("still registers Claude's and ChatGPT's exact redirect URIs", async () => {
    expect(
      (await register({ client_name: "Claude", redirect_uris: [CLAUDE, "https://claude.com/api/mcp/auth_callback"] }))
        .status,
    ).toBe(201);
    expect(
      (
        await register({
          client_name: "ChatGPT",
          redirect_uris: [CHATGPT],
          token_endpoint_auth_method: "client_secret_post",
        })
      ).status,
    ).toBe(201);
  });

  it("stores nothing for a refused registration, and a browser client can read the refusal", async () => {
    const before = (await env.OAUTH_KV.list({ prefix: "client:" })).keys.length;
    const response = await SELF.fetch(`${BASE}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: "https://inspector.example" },
      body: JSON.stringify({
        client_name: "Wild",
        redirect_uris: ["https://*.example/cb"],
        token_endpoint_auth_method: "none",
      }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://inspector.example");
    expect(response.headers.get("cache-control")).toContain("no-store");
    expect((await env.OAUTH_KV.list({ prefix: "client:" })).keys.length).toBe(before);
  });

  it("is enforced by the authorization server itself too, not only by the route in front of it", async () => {
    const servers = getOAuthServers(env, { mcp: mcpResourceHandler, api: apiResourceHandler });
    const ctx = createExecutionContext();
    const direct = await servers.authorizationServer.fetch(
      new Request(`${BASE}/oauth/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          client_name: "y".repeat(201),
          redirect_uris: [CLAUDE],
          token_endpoint_auth_method: "none",
        }),
      }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(direct.status).toBe(400);
    expect(((await direct.json()) as { error_description: string }).error_description).toContain("the limit is 200");
  });
});
