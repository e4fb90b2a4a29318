// Connected clients over REST (scope clients.admin): list the organization's grants, revoke one (its tokens
// stop working, one revoke audit record), clear errors, scope enforcement.
import { describe, expect, it } from "vitest";
import { API_RESOURCE, mcpPost, obtainTokens, registerClient } from "../helpers";
import { call, callJson, restToken } from "../contracts-api/api-helpers";
import { env } from "cloudflare:test";
import type { Env } from "../../../src/env";
import { MEMBERS_PER_PAGE } from "../../../src/oauth/connected-clients";
import { rememberGrantHolder } from "../../../src/oauth/grant-holders";
import { auditEvents, signedIn } from "./console-helpers";

describe("GET /api/v1/clients", () => {
  it("lists the live grants of the organization's members with client name, user, scopes and time", async () => {
    const client = await registerClient({ client_name: "Listed Client" });
    await obtainTokens({ user: "mia", scope: "orders.read contracts.read", client });
    await obtainTokens({ user: "dev", scope: "orders.read", client });
    const admin = await restToken("ana", "clients.admin");
    const { status, body } = await callJson(admin, "GET", "/clients");
    expect(status).toBe(200);
    expect(body.organizationId).toBe("acme");
    const listed = body.grants.filter((g: { clientId: string }) => g.clientId === client.client_id);
    expect(listed.map((g: { userId: string }) => g.userId).sort()).toEqual(["dev", "mia"]);
    const mia = listed.find((g: { userId: string }) => g.userId === "mia");
    expect(mia).toMatchObject({
      clientName: "Listed Client",
      userName: "Mia Member",
      scopes: ["orders.read", "contracts.read"],
    });
    expect(mia.grantId).toEqual(expect.any(String));
    expect(Date.parse(mia.createdAt)).not.toBeNaN();
    expect(mia.expiresAt === null || Date.parse(mia.expiresAt) > Date.parse(mia.createdAt)).toBe(true);
    // The administrator's own REST grant is listed too; no token or secret is.
    expect(
      body.grants.some(
        (g: { userId: string; scopes: string[] }) => g.userId === "ana" && g.scopes.includes("clients.admin"),
      ),
    ).toBe(true);
    expect(JSON.stringify(body)).not.toContain(admin);
  });

  it(`pages the members: ${MEMBERS_PER_PAGE} members' grants per answer, every grant on exactly one page`, async () => {
    // Members who granted once (their grants since gone): each would cost a grant list per answer.
    for (let i = 0; i < MEMBERS_PER_PAGE + 30; i++)
      await rememberGrantHolder(env as Env, { organizationId: "acme", subject: `zz-former-${i}`, name: `Former ${i}` });
    const admin = await restToken("ana", "clients.admin");
    const first = await callJson(admin, "GET", "/clients");
    expect(first.status).toBe(200);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await callJson(admin, "GET", `/clients?cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.status).toBe(200);
    expect(second.body.nextCursor).toBeNull();
    const ids = (page: { grants: Array<{ grantId: string }> }) => page.grants.map((g) => g.grantId);
    // ana, dev and mia sort before the former members: their grants are all on the first page.
    expect(first.body.grants.some((g: { userId: string }) => g.userId === "ana")).toBe(true);
    expect(ids(second.body).filter((id: string) => ids(first.body).includes(id))).toEqual([]);

    // A cursor no page could have given (a space, or past 1024 characters) is refused before KV is asked.
    expect((await callJson(admin, "GET", `/clients?cursor=${"c".repeat(1025)}`)).status).toBe(400);
    const refused = await callJson(admin, "GET", "/clients?cursor=two%20words");
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: "invalid_query" });
    expect(refused.body.detail).toContain("cursor is not one this API gave");

    // The console's page shows the first members and links to the next.
    const browser = await signedIn("ana");
    const { text: page } = await browser.get("/admin/clients");
    expect(page).toContain(`(the grants of ${MEMBERS_PER_PAGE} members per page)`);
    const next = /href="(\/admin\/clients\?cursor=[^"]+)"/.exec(page)?.[1];
    expect(next).toBeDefined();
    const nextPage = await browser.get(next!.replace(/&amp;/g, "&"));
    expect(nextPage.status).toBe(200);
    expect(nextPage.text).toContain("First members");
  });

  it("needs the clients.admin scope", async () => {
    const token = await restToken("ana", "contracts.read");
    const response = await call(token, "GET", "/clients");
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toContain("clients.admin");
  });
});

describe("DELETE /api/v1/clients/grants/:userId/:grantId", () => {
  it("revokes the grant: its tokens stop working and one revoke record is written", async () => {
    const { tokens, client } = await obtainTokens({ user: "mia", scope: "orders.read contracts.read offline_access" });
    expect((await mcpPost(tokens.access_token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).not.toBe(401);
    const admin = await restToken("ana", "clients.admin");
    const grant = (await callJson(admin, "GET", "/clients")).body.grants.find(
      (g: { clientId: string }) => g.clientId === client.client_id,
    );
    const before = (await auditEvents("acme", { target: "revoke", clientId: client.client_id })).length;

    const { status, body } = await callJson(admin, "DELETE", `/clients/grants/mia/${grant.grantId}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      revoked: true,
      grant: { grantId: grant.grantId, userId: "mia", clientId: client.client_id },
    });
    expect((await mcpPost(tokens.access_token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).toBe(401);
    const refresh = await fetchToken({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: client.client_id,
    });
    expect(refresh.status).toBe(400);
    const records = await auditEvents("acme", { target: "revoke", clientId: client.client_id });
    expect(records.length - before).toBe(1);
    expect(records[0]).toMatchObject({ userId: "ana", kind: "oauth", outcome: "ok" });
    expect(records[0]!.reason).toContain("REST API");
    expect(
      (await callJson(admin, "GET", "/clients")).body.grants.some(
        (g: { grantId: string }) => g.grantId === grant.grantId,
      ),
    ).toBe(false);
  });

  it("answers 404 for a grant that is not there and 400 for a malformed id, recording no revocation", async () => {
    const admin = await restToken("ana", "clients.admin");
    const before = (await auditEvents("acme", { target: "revoke" })).length;
    const unknown = await callJson(admin, "DELETE", "/clients/grants/mia/NoSuchGrant123");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("unknown_grant");
    const malformed = await callJson(admin, "DELETE", `/clients/grants/mia/${encodeURIComponent("bad id!")}`);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toContain("GET /api/v1/clients");
    expect((await auditEvents("acme", { target: "revoke" })).length).toBe(before);
  });
});

async function fetchToken(form: Record<string, string>): Promise<Response> {
  const { SELF } = await import("../self");
  return SELF.fetch(new URL("/oauth/token", API_RESOURCE).href, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...form, resource: "http://localhost:8787/mcp" }),
  });
}
