// Client ids, codes and tokens longer than a Workers KV key can be (512 bytes) name nothing this server stores: every
// OAuth endpoint answers them as unknown, with the answer it gives any unknown one, never a 500 (src/oauth/bounded-kv.ts).
import { env } from "cloudflare:test";
import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import { withBoundedKeys } from "../../../src/oauth/bounded-kv";
import { BASE, CookieJar, browserFetch, devSignIn, pkcePair, registerClient } from "../helpers";

const long = (length: number) => "x".repeat(length);

function form(path: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(params),
  });
}

describe("identifiers longer than a KV key", () => {
  it("the bounded namespace: keys that fit read as before, longer ones (in UTF-8 bytes) as absent, writes unhidden", async () => {
    const kv = withBoundedKeys(env.OAUTH_KV);
    const fits = "é".repeat(256); // 512 bytes
    await kv.put(fits, "stored");
    expect(await kv.get(fits)).toBe("stored");
    expect((await kv.getWithMetadata(fits)).value).toBe("stored");
    expect((await kv.list({ prefix: fits })).keys.map((key) => key.name)).toEqual([fits]);
    const over = "é".repeat(257); // 514 bytes, 257 characters
    expect(await kv.get(over)).toBeNull();
    expect(await kv.get(over, "json")).toBeNull();
    expect((await kv.getWithMetadata(over)).value).toBeNull();
    expect((await kv.list({ prefix: over })).keys).toEqual([]);
    await kv.delete(over);
    await expect(kv.put(over, "x")).rejects.toThrow();
    await kv.delete(fits);
    expect(await kv.get(fits)).toBeNull();
  });

  it("/authorize shows its page for a client it does not know, signed in or not", async () => {
    const { challenge } = await pkcePair();
    for (const clientId of [long(600), `${long(300)}é${long(300)}`]) {
      const query = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: "https://client.example/callback",
        code_challenge: challenge,
        code_challenge_method: "S256",
      });
      const anonymous = await SELF.fetch(`${BASE}/authorize?${query}`, { redirect: "manual" });
      expect(anonymous.status).toBe(400);
      expect(await anonymous.text()).toContain("sign-in link");
      const jar = new CookieJar();
      await devSignIn(jar, "ana");
      const signedIn = await browserFetch(jar, `/authorize?${query}`);
      expect(signedIn.status).toBe(400);
    }
  });

  it("/oauth/token answers invalid_client for a long client_id, in the form or in Basic credentials", async () => {
    const inForm = await form("/oauth/token", {
      grant_type: "authorization_code",
      client_id: long(600),
      code: "a:b:c",
    });
    expect(inForm.status).toBe(401);
    expect(((await inForm.json()) as { error: string }).error).toBe("invalid_client");
    const basic = await form(
      "/oauth/token",
      { grant_type: "client_credentials" },
      { Authorization: `Basic ${btoa(`${long(600)}:secret`)}` },
    );
    expect(basic.status).toBe(401);
    expect(((await basic.json()) as { error: string }).error).toBe("invalid_client");
  });

  it("/oauth/token answers invalid_grant for a long code or refresh token of a real client", async () => {
    const client = await registerClient();
    const grants: Array<Record<string, string>> = [
      { grant_type: "authorization_code", code: `${long(600)}:grant:secret`, code_verifier: long(50) },
      { grant_type: "refresh_token", refresh_token: `${long(600)}:grant:secret` },
      { grant_type: "refresh_token", refresh_token: `${long(600)}:grant:secret`, scope: "orders.read" },
    ];
    for (const params of grants) {
      const response = await form("/oauth/token", {
        ...params,
        client_id: client.client_id,
        redirect_uri: client.redirect_uris[0]!,
      });
      expect(response.status, JSON.stringify(params).slice(0, 80)).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe("invalid_grant");
    }
  });

  it("revocation (RFC 7009, at the token endpoint) accepts a long token as it does any unknown one", async () => {
    const client = await registerClient();
    const response = await form("/oauth/token", { token: `${long(600)}:grant:secret`, client_id: client.client_id });
    expect(response.status).toBe(200);
  });

  it("a bearer token on /mcp and /api: 401 with the usual challenge", async () => {
    for (const path of ["/mcp", "/api/v1/whoami"]) {
      const response = await SELF.fetch(`${BASE}${path}`, {
        method: path === "/mcp" ? "POST" : "GET",
        headers: { Authorization: `Bearer ${long(600)}:grant:secret`, "Content-Type": "application/json" },
        body: path === "/mcp" ? "{}" : undefined,
      });
      expect(response.status).toBe(401);
    }
  });
});
