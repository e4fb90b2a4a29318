// The grant-holder index: written once per member when /authorize completes a grant, listed per organization
// (never another's), and never in the way of a sign-in when KV fails.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { listGrantHolderPage, rememberGrantHolder } from "../../../src/oauth/grant-holders";
import { obtainTokens } from "../helpers";

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

  it("never throws when KV fails", async () => {
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
    await expect(
      rememberGrantHolder(failing, { organizationId: "acme", subject: "x", name: "X" }),
    ).resolves.toBeUndefined();
  });
});
