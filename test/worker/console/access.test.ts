// Who may use the admin console: signed-out visitors are sent to sign-in (and back), members without the
// admin role get a 403 page on every page and form, administrators see only their own organization.
import { env } from "cloudflare:test";
import { SELF } from "../self";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, mcpPost, obtainTokens } from "../helpers";
import { call, callJson, restToken } from "../contracts-api/api-helpers";
import { ordersContract, text } from "../contracts-api/fixtures";
import { signedIn, visibleText } from "./console-helpers";
import { contractStore } from "../../../src/contracts/store/client";

const PAGES = ["/admin", "/admin/clients", "/admin/keys", "/admin/projects", "/admin/audit", "/admin/usage"];
const FORMS = ["/admin/clients/revoke", "/admin/keys", "/admin/keys/revoke"];

let acmeKeyId: string;
let acmeKeyName: string;
let miaGrant: { token: string; clientId: string; clientName: string };

beforeAll(async () => {
  // acme: a project, a CI key and a member's connected client; globex: its own key.
  const ana = await restToken("ana", "keys.admin contracts.write");
  expect((await callJson(ana, "POST", "/projects/acme-orders/contracts", text(ordersContract()))).status).toBe(201);
  acmeKeyName = "acme-secret-pipeline";
  const created = await callJson(ana, "POST", "/keys", {
    name: acmeKeyName,
    projects: ["acme-orders"],
    scopes: ["snapshots.write"],
  });
  acmeKeyId = created.body.key.id;
  const { tokens, client } = await obtainTokens({ user: "mia", scope: "orders.read contracts.read" });
  miaGrant = {
    token: tokens.access_token,
    clientId: client.client_id,
    clientName: client.client_name ?? "Test Client",
  };
  const gus = await restToken("gus", "keys.admin");
  expect(
    (await callJson(gus, "POST", "/keys", { name: "globex-pipeline", projects: ["*"], scopes: ["contracts.read"] }))
      .status,
  ).toBe(201);
});

describe("admin console access", () => {
  it("sends a signed-out visitor to sign-in and back to the page asked for", async () => {
    const response = await SELF.fetch(`${BASE}/admin/audit?outcome=ok`, { redirect: "manual" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`/signin?return=${encodeURIComponent("/admin/audit?outcome=ok")}`);
    const form = await SELF.fetch(`${BASE}/admin/keys/revoke`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
      body: `id=${acmeKeyId}`,
    });
    expect(form.status).toBe(401);
  });

  it("returns to the console after signing in", async () => {
    const browser = await signedIn("ana");
    const landing = await browser.get("/admin");
    expect(landing.status).toBe(200);
    expect(landing.text).toContain("Acme Commerce");
  });

  it("refuses a member without the admin role on every page and form, with a page that says why", async () => {
    for (const user of ["mia", "dev"]) {
      const member = await signedIn(user);
      for (const path of PAGES) {
        const page = await member.get(path);
        expect(page.status, `${user} ${path}`).toBe(403);
        expect(visibleText(page.text)).toContain("Administrators only");
        expect(page.text).not.toContain(acmeKeyName);
      }
      for (const path of FORMS) {
        const post = await member.post(path, {
          id: acmeKeyId,
          name: "x",
          project: "*",
          scope: "contracts.read",
          user: "mia",
          grant: "g",
        });
        expect(post.status, `${user} POST ${path}`).toBe(403);
      }
    }
    // Nothing changed: the key is still active and mia's client still works.
    expect((await contractStore(env, "acme").getKey(acmeKeyId))?.revokedAt).toBeNull();
    expect((await mcpPost(miaGrant.token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).not.toBe(401);
  });

  it("serves every page to an administrator, unframeable and uncached", async () => {
    const ana = await signedIn("ana");
    for (const path of PAGES) {
      const page = await ana.get(path);
      expect(page.status, path).toBe(200);
      expect(page.response.headers.get("x-frame-options")).toBe("DENY");
      expect(page.response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(page.response.headers.get("cache-control")).toBe("no-store");
      expect(page.text).toMatch(/<nav class="console-nav" aria-label="Admin console">/);
      expect(page.text).toContain('aria-current="page"');
    }
  });

  it("answers unknown console paths with 404 and wrong methods with 405", async () => {
    const ana = await signedIn("ana");
    expect((await ana.get("/admin/nothing-here")).status).toBe(404);
    expect((await ana.get("/admin/keys/revoke")).status).toBe(405);
    expect((await ana.post("/admin/projects", { csrf: await ana.csrf() })).status).toBe(405);
  });
});

describe("organization isolation", () => {
  it("shows an administrator only their own organization's clients, keys, projects and audit trail", async () => {
    const gus = await signedIn("gus");
    for (const path of PAGES) {
      const page = await gus.get(path);
      expect(page.status).toBe(200);
      expect(page.text).toContain("Globex Retail");
      expect(page.text, path).not.toContain("Acme Commerce");
      expect(page.text, path).not.toContain(acmeKeyName);
      expect(page.text, path).not.toContain(acmeKeyId);
      expect(page.text, path).not.toContain("acme-orders");
      expect(page.text, path).not.toContain(miaGrant.clientId);
    }
    expect((await gus.get("/admin/keys")).text).toContain("globex-pipeline");
    const ana = await signedIn("ana");
    const keys = await ana.get("/admin/keys");
    expect(keys.text).toContain(acmeKeyName);
    expect(keys.text).not.toContain("globex-pipeline");
    expect((await ana.get("/admin/clients")).text).toContain(miaGrant.clientId);
    expect((await ana.get("/admin/projects")).text).toContain("acme-orders");
  });

  it("cannot revoke another organization's CI key or grant, even when naming them exactly", async () => {
    const gus = await signedIn("gus");
    const csrf = await gus.csrf();
    const key = await gus.post("/admin/keys/revoke", { csrf, id: acmeKeyId });
    expect(key.status).toBe(404);
    expect((await contractStore(env, "acme").getKey(acmeKeyId))?.revokedAt).toBeNull();

    const acmeClients = await (await signedIn("ana")).get("/admin/clients");
    const grantId = /name="grant" value="([^"]+)"/.exec(acmeClients.text)![1]!;
    const grant = await gus.post("/admin/clients/revoke", { csrf, user: "mia", grant: grantId });
    expect(grant.status).toBe(404);
    expect((await mcpPost(miaGrant.token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).not.toBe(401);

    // And over REST: globex's admin token sees none of acme's grants and cannot revoke one.
    const gusToken = await restToken("gus", "clients.admin");
    const listed = await callJson(gusToken, "GET", "/clients");
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(miaGrant.clientId);
    expect((await call(gusToken, "DELETE", `/clients/grants/mia/${grantId}`)).status).toBe(404);
    expect((await mcpPost(miaGrant.token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).not.toBe(401);
  });
});
