// Console actions: revoke a connected client's grant, create a CI key (shown once) and revoke it. Each
// leaves exactly one audit record; CSRF refusals change nothing and record nothing; output is escaped.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, browserFetch, mcpPost, obtainTokens, registerClient } from "../helpers";
import { call, callJson } from "../contracts-api/api-helpers";
import { ordersContract, text } from "../contracts-api/fixtures";
import { contractStore } from "../../../src/contracts/store/client";
import { auditEvents, csrfFrom, signedIn, visibleText } from "./console-helpers";

function keyIdFrom(page: string, name: string): string {
  const row = page.split("<tr>").find((r) => r.includes(name) && r.includes('name="id"'));
  const id = row ? /name="id" value="([0-9a-f]{16})"/.exec(row)?.[1] : undefined;
  if (!id) throw new Error(`no revocable key named ${name}`);
  return id;
}

describe("revoking a connected client", () => {
  it("revokes the grant, its token stops working, and one revoke record names the client", async () => {
    const { tokens, client } = await obtainTokens({ user: "mia", scope: "orders.read contracts.read offline_access" });
    expect((await mcpPost(tokens.access_token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).not.toBe(401);
    const ana = await signedIn("ana");
    const page = await ana.get("/admin/clients");
    expect(page.text).toContain(client.client_id);
    expect(visibleText(page.text)).toContain("Mia Member");
    const row = page.text.split("<tr>").find((r) => r.includes(client.client_id))!;
    const grantId = /name="grant" value="([^"]+)"/.exec(row)![1]!;

    const before = await auditEvents("acme", { target: "revoke" });
    const revoked = await ana.post("/admin/clients/revoke", { csrf: csrfFrom(page.text), user: "mia", grant: grantId });
    expect(revoked.status).toBe(303);
    expect(revoked.response.headers.get("location")).toBe("/admin/clients?done=grant-revoked");

    expect((await mcpPost(tokens.access_token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).toBe(401);
    const refreshed = await ana.get("/admin/clients?done=grant-revoked");
    expect(refreshed.text).not.toContain(grantId);
    expect(visibleText(refreshed.text)).toContain("The grant was revoked");

    const after = await auditEvents("acme", { target: "revoke" });
    expect(after.length - before.length).toBe(1);
    expect(after[0]).toMatchObject({
      organizationId: "acme",
      userId: "ana",
      clientId: client.client_id,
      kind: "oauth",
      outcome: "ok",
    });
    expect(after[0]!.reason).toContain(grantId);
    expect(after[0]!.reason).toContain("admin console");

    // The same grant again: nothing to revoke, nothing recorded.
    const again = await ana.post("/admin/clients/revoke", { csrf: csrfFrom(page.text), user: "mia", grant: grantId });
    expect(again.status).toBe(404);
    expect(visibleText(again.text)).toContain("may already be revoked");
    expect(await auditEvents("acme", { target: "revoke" })).toHaveLength(after.length);
  });
});

describe("CI keys in the console", () => {
  it("creates a key shown once that works on the API, then revokes it; one audit record each", async () => {
    const ana = await signedIn("ana");
    const csrf = await ana.csrf();
    // A project to upload to.
    const { tokens } = await obtainTokens({ user: "ana", scope: "contracts.write", resource: `${BASE}/api` });
    expect(
      (await callJson(tokens.access_token, "POST", "/projects/console-orders/contracts", text(ordersContract())))
        .status,
    ).toBe(201);
    const keysPage = await ana.get("/admin/keys");
    expect(keysPage.text).toContain('value="console-orders"');

    const created = await ana.post("/admin/keys", {
      csrf,
      name: "console pipeline",
      project: "console-orders",
      otherProjects: "",
      scope: ["snapshots.write", "contracts.read"],
      expiresOn: "",
    });
    expect(created.status).toBe(201);
    const secret = /<code id="new-key-secret">([^<]+)<\/code>/.exec(created.text)![1]!;
    expect(secret).toMatch(/^arb_ci_acme_[0-9a-f]{16}_/);
    expect(visibleText(created.text)).toContain("it is not shown again");
    const keyId = keyIdFrom(created.text, "console pipeline");

    const createdEvents = await auditEvents("acme", { target: "ci_key_created" });
    expect(createdEvents.filter((e) => e.reason.includes(keyId))).toHaveLength(1);
    expect(createdEvents[0]).toMatchObject({ userId: "ana", clientId: "admin-console", kind: "oauth", outcome: "ok" });
    expect(JSON.stringify(await auditEvents("acme"))).not.toContain(secret.slice(-43));

    // The secret is never shown again.
    const listed = await ana.get("/admin/keys");
    expect(listed.text).toContain(keyId);
    expect(listed.text).not.toContain(secret.slice(-43));

    const upload = await call(
      secret,
      "POST",
      "/projects/console-orders/snapshots?commit=abc123",
      text(ordersContract()),
    );
    expect(upload.status).toBe(201);

    const revoked = await ana.post("/admin/keys/revoke", { csrf, id: keyId });
    expect(revoked.status).toBe(303);
    expect(revoked.response.headers.get("location")).toBe("/admin/keys?done=key-revoked");
    expect(
      (await call(secret, "POST", "/projects/console-orders/snapshots?commit=abc124", text(ordersContract()))).status,
    ).toBe(401);
    const revokedEvents = (await auditEvents("acme", { target: "ci_key_revoked" })).filter((e) =>
      e.reason.includes(keyId),
    );
    expect(revokedEvents).toHaveLength(1);
    expect(revokedEvents[0]).toMatchObject({ userId: "ana", clientId: "admin-console" });
    const page = await ana.get("/admin/keys?done=key-revoked");
    expect(visibleText(page.text)).toContain("The CI key was revoked");
    expect(page.text.split("<tr>").find((r) => r.includes(keyId))).toContain('badge bad">revoked');

    // Revoking again changes nothing and records nothing.
    expect((await ana.post("/admin/keys/revoke", { csrf, id: keyId })).response.headers.get("location")).toBe(
      "/admin/keys?done=key-already-revoked",
    );
    expect(
      (await auditEvents("acme", { target: "ci_key_revoked" })).filter((e) => e.reason.includes(keyId)),
    ).toHaveLength(1);
  });

  it("refuses bad key forms with a message, keeps what was typed, and creates nothing", async () => {
    const ana = await signedIn("ana");
    const csrf = await ana.csrf();
    const before = ((await contractStore(env, "acme").listKeys()) ?? []).length;
    const cases: Array<[Record<string, string | string[]>, string]> = [
      [{ name: "no projects", scope: "contracts.read" }, "Choose at least one project"],
      [{ name: "no scopes", project: "*" }, "Choose at least one scope"],
      [{ name: "bad project", otherProjects: "Not A Project!", scope: "contracts.read" }, "projects"],
      [{ name: "", project: "*", scope: "contracts.read" }, "name"],
      [{ name: "past", project: "*", scope: "contracts.read", expiresOn: "2001-01-01" }, "in the past"],
      [{ name: "bad date", project: "*", scope: "contracts.read", expiresOn: "next week" }, "YYYY-MM-DD"],
      [{ name: "admin scope", project: "*", scope: "keys.admin" }, "scopes"],
    ];
    for (const [fields, message] of cases) {
      const answer = await ana.post("/admin/keys", { csrf, ...fields });
      expect(answer.status, JSON.stringify(fields)).toBe(400);
      expect(visibleText(answer.text)).toContain(message);
      expect(answer.text).not.toContain("new-key-secret");
      if (fields.name) expect(answer.text).toContain(`value="${fields.name}"`);
    }
    expect(((await contractStore(env, "acme").listKeys()) ?? []).length).toBe(before);
  });
});

describe("CSRF protection", () => {
  it("refuses forms without the session's token or from another origin, and changes nothing", async () => {
    const ana = await signedIn("ana");
    const csrf = await ana.csrf();
    // Another session's token (another administrator: same-user sign-ins in the same second share a cookie).
    const other = await signedIn("gus");
    const otherCsrf = await other.csrf();
    expect(otherCsrf).not.toBe(csrf);
    const created = await ana.post("/admin/keys", { csrf, name: "csrf target", project: "*", scope: "contracts.read" });
    const keyId = keyIdFrom(created.text, "csrf target");
    const recordsBefore = (await auditEvents("acme")).length;

    const attempts: Array<[string, Record<string, string>, Record<string, string>]> = [
      ["no token", { id: keyId }, { Origin: BASE }],
      ["empty token", { id: keyId, csrf: "" }, { Origin: BASE }],
      ["forged token", { id: keyId, csrf: csrf.slice(0, -2) + (csrf.endsWith("AA") ? "BB" : "AA") }, { Origin: BASE }],
      ["another session's token", { id: keyId, csrf: otherCsrf }, { Origin: BASE }],
      ["foreign origin", { id: keyId, csrf }, { Origin: "https://evil.example" }],
      ["null origin", { id: keyId, csrf }, { Origin: "null" }],
      ["no origin, cross-site", { id: keyId, csrf }, { "Sec-Fetch-Site": "cross-site" }],
      ["no origin at all", { id: keyId, csrf }, {}],
    ];
    for (const [what, fields, headers] of attempts) {
      const answer = await ana.post("/admin/keys/revoke", fields, headers);
      expect(answer.status, what).toBe(403);
      expect(visibleText(answer.text), what).toContain("Nothing was changed");
    }
    for (const [path, fields] of [
      ["/admin/keys", { name: "csrf made", project: "*", scope: "contracts.read" }],
      ["/admin/clients/revoke", { user: "mia", grant: "abc" }],
    ] as const) {
      expect((await ana.post(path, { ...fields, csrf: otherCsrf })).status, path).toBe(403);
    }
    expect((await contractStore(env, "acme").getKey(keyId))?.revokedAt).toBeNull();
    expect(((await contractStore(env, "acme").listKeys()) ?? []).some((k) => k.name === "csrf made")).toBe(false);
    expect((await auditEvents("acme")).length).toBe(recordsBefore);

    // The browser's own same-origin post without an Origin header (Sec-Fetch-Site: same-origin) is accepted.
    expect(
      (await ana.post("/admin/keys/revoke", { id: keyId, csrf }, { "Sec-Fetch-Site": "same-origin" })).status,
    ).toBe(303);
  });
});

describe("unreadable forms", () => {
  it("refuses a form that is too large or not form-encoded, and changes nothing", async () => {
    const ana = await signedIn("ana");
    const csrf = await ana.csrf();
    const before = ((await contractStore(env, "acme").listKeys()) ?? []).length;
    const huge = await ana.post("/admin/keys", {
      csrf,
      name: "huge",
      project: "*",
      scope: "contracts.read",
      padding: "x".repeat(20_000),
    });
    expect(huge.status).toBe(400);
    expect(visibleText(huge.text)).toContain("The form could not be read");
    const json = await browserFetch(ana.jar, "/admin/keys", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: BASE },
      body: JSON.stringify({ csrf, name: "json", project: "*", scope: "contracts.read" }),
    });
    expect(json.status).toBe(400);
    expect(((await contractStore(env, "acme").listKeys()) ?? []).length).toBe(before);
  });
});

describe("escaping", () => {
  it("shows client names, key names and audit reasons with markup as text", async () => {
    const evil = `<script>alert("x")</script><img src=x onerror=alert(1)>`;
    const client = await registerClient({ client_name: `Evil ${evil}` });
    await obtainTokens({ user: "mia", scope: "orders.read", client });
    const ana = await signedIn("ana");
    const csrf = await ana.csrf();
    await ana.post("/admin/keys", { csrf, name: `key ${evil}`, project: "*", scope: "contracts.read" });
    for (const path of [
      "/admin/clients",
      "/admin/keys",
      "/admin/usage",
      "/admin/audit",
      `/admin/audit?target=${encodeURIComponent(evil)}`,
    ]) {
      const page = await ana.get(path);
      expect(page.text, path).not.toContain("<script>alert");
      expect(page.text, path).not.toContain("<img src=x");
    }
    const clients = await ana.get("/admin/clients");
    expect(visibleText(clients.text)).toContain(`Evil ${evil}`);
    const keys = await ana.get("/admin/keys");
    expect(visibleText(keys.text)).toContain(`key ${evil}`);
    const filtered = await ana.get(`/admin/audit?target=${encodeURIComponent(evil)}`);
    expect(filtered.text).toContain(`value="&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;`);
  });
});
