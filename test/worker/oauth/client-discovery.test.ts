// Discovery documents real clients probe (ChatGPT: the root protected-resource document and OpenID Connect
// discovery), and requests on a host that is not PUBLIC_URL's, which get a JSON answer naming the configured URL.
import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import { BASE, MCP_URL } from "../helpers";

describe("discovery documents clients probe", () => {
  it("serves the /mcp resource's metadata at the root /.well-known/oauth-protected-resource", async () => {
    const root = await SELF.fetch(`${BASE}/.well-known/oauth-protected-resource`);
    expect(root.status).toBe(200);
    const suffixed = await SELF.fetch(`${BASE}/.well-known/oauth-protected-resource/mcp`);
    const document = (await root.json()) as { resource: string; authorization_servers: string[] };
    expect(document).toEqual(await suffixed.json());
    expect(document.resource).toBe(MCP_URL);
    expect(document.authorization_servers).toEqual([BASE]);
  });

  it("publishes the authorization server's RFC 8414 metadata at /.well-known/openid-configuration, claiming no ID tokens", async () => {
    const oidc = await SELF.fetch(`${BASE}/.well-known/openid-configuration`);
    expect(oidc.status).toBe(200);
    const metadata = (await oidc.json()) as Record<string, unknown>;
    const rfc8414 = (await (await SELF.fetch(`${BASE}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.issuer).toBe(BASE);
    for (const key of [
      "authorization_endpoint",
      "token_endpoint",
      "registration_endpoint",
      "scopes_supported",
      "code_challenge_methods_supported",
    ])
      expect(metadata[key]).toEqual(rfc8414[key]);
    expect(metadata.response_types_supported).toEqual(["code"]);
    expect(Object.keys(metadata).filter((key) => key.startsWith("id_token_"))).toEqual([]);
    expect(metadata.scopes_supported).not.toContain("openid");
  });
});

describe("a host that is not PUBLIC_URL's", () => {
  for (const path of [
    "/mcp",
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-authorization-server",
    "/oauth/token",
  ]) {
    it(`answers ${path} on 127.0.0.1 with JSON naming the configured URL, not an empty 404`, async () => {
      const response = await SELF.fetch(`http://127.0.0.1:8787${path}`, {
        method: path === "/oauth/token" ? "POST" : "GET",
      });
      expect(response.status).toBe(421);
      const body = (await response.json()) as { error: string; error_description: string; public_url: string };
      expect(body.error).toBe("wrong_host");
      expect(body.public_url).toBe(BASE);
      expect(body.error_description).toContain(`${BASE}${path}`);
    });
  }

  it("still refuses a Host that is not allowed at all at /mcp with 403 (DNS rebinding)", async () => {
    const response = await SELF.fetch("https://evil.example/mcp", { method: "POST", body: "{}" });
    expect(response.status).toBe(403);
  });
});
