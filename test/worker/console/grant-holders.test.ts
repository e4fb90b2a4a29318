// The grant-holder index: written once per member when /authorize completes a grant, before the grant (a grant the
// index could not note is not made: the sweeps and the console find grants through it), listed per organization
// (never another's).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { listGrantHolderPage, rememberGrantHolder } from "../../../src/oauth/grant-holders";
import { getAuthorizationServer, grantUserId } from "../../../src/oauth/servers";
import {
  authorizeUrl,
  BASE,
  browserFetch,
  CookieJar,
  consentHandle,
  devSignIn,
  obtainTokens,
  pkcePair,
  registerClient,
} from "../helpers";

const listGrantHolders = async (from: Env, organizationId: string) =>
  (await listGrantHolderPage(from, organizationId, { limit: 1000 })).holders;

describe("grant-holder index", () => {
  it("is written when /authorize completes a grant", async () => {
    expect((await listGrantHolders(env as Env, "globex")).map((h) => h.subject)).not.toContain("gus");
    await obtainTokens({ user: "gus", scope: "orders.read" });
    expect(await listGrantHolders(env as Env, "globex")).toEqual([
      { subject: "gus", name: "Gus Globex", since: expect.any(String) },
    ]);
  });

  it("writes a member once and keeps the first entry", async () => {
    let writes = 0;
    const counting = {
      ...env,
      OAUTH_KV: {
        get: (key: string) => env.OAUTH_KV.get(key),
        put: (...args: Parameters<KVNamespace["put"]>) => (writes++, env.OAUTH_KV.put(...args)),
        list: env.OAUTH_KV.list.bind(env.OAUTH_KV),
      },
    } as unknown as Env;
    await rememberGrantHolder(
      counting,
      { organizationId: "initech", subject: "peter/1", name: "Peter" },
      Date.parse("2026-01-01T00:00:00Z"),
    );
    await rememberGrantHolder(
      counting,
      { organizationId: "initech", subject: "peter/1", name: "Renamed" },
      Date.parse("2026-02-01T00:00:00Z"),
    );
    expect(writes).toBe(1);
    expect(await listGrantHolders(counting, "initech")).toEqual([
      { subject: "peter/1", name: "Peter", since: "2026-01-01T00:00:00.000Z" },
    ]);
  });

  it("keeps organizations apart, even when one id is a prefix of another", async () => {
    await rememberGrantHolder(env as Env, { organizationId: "acme-labs", subject: "zed", name: "Zed" });
    await rememberGrantHolder(env as Env, { organizationId: "acme", subject: "amy", name: "Amy" });
    expect((await listGrantHolders(env as Env, "acme")).map((h) => h.subject)).not.toContain("zed");
    expect((await listGrantHolders(env as Env, "acme-labs")).map((h) => h.subject)).toEqual(["zed"]);
  });

  it("answers false, and never throws, when KV fails", async () => {
    const failing = {
      ...env,
      OAUTH_KV: {
        get: async () => {
          throw new Error("KV down");
        },
        put: async () => {
          throw new Error("KV down");
        },
      },
    } as unknown as Env;
    await expect(rememberGrantHolder(failing, { organizationId: "acme", subject: "x", name: "X" })).resolves.toBe(
      false,
    );
  });

  it("refuses the grant, making none, when the index cannot note its holder", async () => {
    const client = await registerClient();
    const jar = new CookieJar();
    await devSignIn(jar, "mia");
    const { challenge } = await pkcePair();
    const consent = await browserFetch(jar, authorizeUrl(client, challenge, { scope: "orders.read" }));
    expect(consent.status).toBe(200);
    const form = new URLSearchParams({ handle: consentHandle(await consent.text()), decision: "approve" });
    form.append("scope", "orders.read");
    // The index's write fails (KV refusing it); the OAuth library's own writes go through. The binding itself is
    // patched: the Worker keeps its own view of the environment (bounded-kv.ts), made from the same binding.
    const kv = env.OAUTH_KV as KVNamespace & { put: KVNamespace["put"] };
    const put = kv.put.bind(kv);
    Object.defineProperty(kv, "put", {
      configurable: true,
      value: (key: string, ...rest: [never, never]) => {
        if (key.startsWith("arbiter:grant-holders:")) return Promise.reject(new Error("KV refused the write"));
        return put(key, ...rest);
      },
    });
    let refused: Response;
    try {
      refused = await browserFetch(jar, "/authorize", {
        method: "POST",
        body: form,
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
      });
    } finally {
      Reflect.deleteProperty(kv, "put");
    }
    expect(Object.getOwnPropertyDescriptor(kv, "put")).toBeUndefined();
    expect(refused.status).toBe(503);
    expect(refused.headers.get("location")).toBeNull();
    expect(await refused.text()).toContain("nothing was granted");
    const oauth = getAuthorizationServer(env as Env).getOAuthApi(env as Env);
    expect((await oauth.listUserGrants(grantUserId("acme", "mia"))).items).toEqual([]);
    expect((await listGrantHolders(env as Env, "acme")).map((h) => h.subject)).not.toContain("mia");

    // Tried again with KV working: the holder is noted and the grant made.
    await obtainTokens({ user: "mia", scope: "orders.read", client });
    expect((await listGrantHolders(env as Env, "acme")).map((h) => h.subject)).toContain("mia");
    expect((await oauth.listUserGrants(grantUserId("acme", "mia"))).items).toHaveLength(1);
  });
});
