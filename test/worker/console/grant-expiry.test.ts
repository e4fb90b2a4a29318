// What the console and GET /api/v1/clients say about when a grant ends. The library records a grant's expiry
// only at the code exchange: the refresh token's (offline_access) or, without one, the access token's. A grant
// whose code was not redeemed yet used to read "no expiry"; it lapses with its code after 10 minutes.
import { describe, expect, it } from "vitest";
import {
  authorizeUrl,
  BASE,
  browserFetch,
  consentHandle,
  CookieJar,
  devSignIn,
  obtainTokens,
  pkcePair,
  registerClient,
} from "../helpers";
import { callJson, restToken } from "../contracts-api/api-helpers";
import { signedIn, visibleText } from "./console-helpers";

interface ListedGrant {
  clientId: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  expiry: string;
}

async function grantOf(clientId: string): Promise<ListedGrant> {
  const admin = await restToken("ana", "clients.admin");
  const { body } = await callJson(admin, "GET", "/clients");
  const grant = (body.grants as ListedGrant[]).find((g) => g.clientId === clientId);
  if (!grant) throw new Error(`no grant listed for ${clientId}`);
  return grant;
}

/**
 * How long after its creation a grant ends, in seconds beyond `ttlSeconds`. The library stamps createdAt (whole
 * seconds) when the code is issued and the expiry at the exchange a moment later, so the two may straddle a
 * second boundary: 0 or 1, never more in these tests, and anything else means another lifetime.
 */
const beyond = (grant: ListedGrant, ttlSeconds: number) =>
  (Date.parse(grant.expiresAt!) - Date.parse(grant.createdAt)) / 1000 - ttlSeconds;

describe("grant expiry", () => {
  it("says a grant without a refresh token ends with its access token, one with offline_access after 30 days", async () => {
    const codeOnly = await registerClient({ client_name: "Code Only Client", grant_types: ["authorization_code"] });
    await obtainTokens({ user: "mia", scope: "orders.read", client: codeOnly });
    const short = await grantOf(codeOnly.client_id);
    expect(short).toMatchObject({ expiry: "access-token" });
    expect([0, 1]).toContain(beyond(short, 3600));

    const refreshing = await registerClient({ client_name: "Refreshing Client", grant_types: ["authorization_code"] });
    await obtainTokens({ user: "mia", scope: "orders.read offline_access", client: refreshing });
    const long = await grantOf(refreshing.client_id);
    expect(long).toMatchObject({ expiry: "refresh-token" });
    expect([0, 1]).toContain(beyond(long, 30 * 24 * 3600));

    const page = visibleText((await (await signedIn("ana")).get("/admin/clients")).text);
    expect(page).toContain("no refresh token: ends when its access token does (1 hour)");
    expect(page).toContain("refresh token (offline_access) for 30 days; each access token lasts 1 hour");
  });

  it('gives a grant whose code is not redeemed yet the code\'s 10 minutes, not "no expiry"', async () => {
    const client = await registerClient({ client_name: "Unredeemed Client", grant_types: ["authorization_code"] });
    const jar = new CookieJar();
    await devSignIn(jar, "mia");
    const { challenge } = await pkcePair();
    const consent = await browserFetch(jar, authorizeUrl(client, challenge, { scope: "orders.read" }));
    const form = new URLSearchParams({
      handle: consentHandle(await consent.text()),
      decision: "approve",
      scope: "orders.read",
    });
    const approved = await browserFetch(jar, "/authorize", {
      method: "POST",
      body: form,
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
    });
    expect(new URL(approved.headers.get("location")!).searchParams.get("code")).toBeTruthy();

    const pending = await grantOf(client.client_id);
    expect(pending.expiry).toBe("unredeemed-code");
    expect((Date.parse(pending.expiresAt!) - Date.parse(pending.createdAt)) / 60_000).toBe(10);
    const page = await (await signedIn("ana")).get("/admin/clients");
    const row = page.text.split("<tr>").find((r) => r.includes("Unredeemed Client"))!;
    expect(visibleText(row)).toContain("code not redeemed yet");
    expect(page.text).not.toContain("no expiry");
  });
});
