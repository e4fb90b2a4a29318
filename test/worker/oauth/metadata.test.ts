// Discovery as MCP clients perform it: RFC 9728 protected-resource metadata per resource, RFC 8414
// authorization-server metadata, and the 401 challenges that point at them.
import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import { BASE, mcpPost } from "../helpers";

describe("OAuth discovery", () => {
  it("publishes authorization server metadata (RFC 8414) with PKCE S256, DCR, CIMD, refresh and revocation", async () => {
    const res = await SELF.fetch(`${BASE}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta.issuer).toBe(BASE);
    expect(meta.authorization_endpoint).toBe(`${BASE}/authorize`);
    expect(meta.token_endpoint).toBe(`${BASE}/oauth/token`);
    expect(meta.registration_endpoint).toBe(`${BASE}/oauth/register`);
    expect(meta.revocation_endpoint).toBeTruthy();
    expect(meta.code_challenge_methods_supported).toEqual(["S256"]);
    expect(meta.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    expect(meta.client_id_metadata_document_supported).toBe(true);
    expect(meta.protected_resources).toEqual([`${BASE}/mcp`, `${BASE}/api`]);
    for (const scope of [
      "orders.read",
      "orders.search",
      "orders.pii",
      "contracts.read",
      "contracts.write",
      "snapshots.write",
      "audit.read",
      "keys.admin",
      "clients.admin",
      "offline_access",
    ]) {
      expect(meta.scopes_supported).toContain(scope);
    }
  });

  it("publishes protected resource metadata for /mcp with the MCP baseline scopes", async () => {
    const res = await SELF.fetch(`${BASE}/.well-known/oauth-protected-resource/mcp`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      resource: `${BASE}/mcp`,
      authorization_servers: [BASE],
      scopes_supported: ["orders.read", "contracts.read"],
      bearer_methods_supported: ["header"],
      resource_name: "Arbiter MCP server",
    });
  });

  it("publishes protected resource metadata for the REST API", async () => {
    const res = await SELF.fetch(`${BASE}/.well-known/oauth-protected-resource/api`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      resource: `${BASE}/api`,
      authorization_servers: [BASE],
      scopes_supported: ["contracts.read"],
    });
  });

  it("answers an unauthenticated /mcp request with 401 and a challenge naming its metadata and baseline scopes", async () => {
    const res = await mcpPost(undefined, { jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toContain('scope="orders.read contracts.read"');
  });

  it("answers an unauthenticated REST request and /chat with a challenge for the REST resource", async () => {
    for (const path of ["/api/v1/whoami", "/chat"]) {
      const res = await SELF.fetch(`${BASE}${path}`, { method: path === "/chat" ? "POST" : "GET" });
      expect(res.status, path).toBe(401);
      expect(res.headers.get("www-authenticate"), path).toContain(
        `resource_metadata="${BASE}/.well-known/oauth-protected-resource/api"`,
      );
    }
  });

  it("answers a garbage bearer token with 401 invalid_token", async () => {
    const res = await mcpPost("not-a-real-token", { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("serves /health and a landing page that says how to connect", async () => {
    const health = await SELF.fetch(`${BASE}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok", service: "arbiter" });
    const landing = await SELF.fetch(`${BASE}/`);
    expect(landing.status).toBe(200);
    const html = await landing.text();
    expect(html).toContain(`${BASE}/mcp`);
    expect(html).toMatch(/Claude/);
    expect(html).toMatch(/ChatGPT/);
    expect(landing.headers.get("x-frame-options")).toBe("DENY");
  });
});
