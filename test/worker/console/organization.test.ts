// The console's organization page (/admin/organization, org.admin): the settings form changes the directory (and a
// refused change says why and stores nothing), secrets are write-only, "Test connection" names what failed, members
// change role or leave, an invitation link is shown once, and another organization's administrator sees only theirs.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CHANGES_SHOWN, INVITATIONS_SHOWN, MEMBERS_PER_PAGE } from "../../../src/web/console/organization.page";
import { operator } from "../directory/helpers";
import { auditEvents, signedIn, visibleText } from "./console-helpers";

describe("the organization page", () => {
  it("shows and saves the settings, refusing a bad one with its field and keeping the stored ones", async () => {
    const ana = await signedIn("ana");
    const page = await ana.get("/admin/organization");
    expect(page.status).toBe(200);
    const text = visibleText(page.text);
    expect(text).toMatch(/Acme Commerce \(\s*acme\s*\): active/);
    expect(page.text).toContain('value="acme.example"');
    const csrf = await ana.csrf();
    const revision = /name="revision" value="(\d+)"/.exec(page.text)![1]!;
    const form = {
      csrf,
      revision,
      name: "Acme Commerce",
      emailDomains: "acme.example, acme-shop.example",
      defaultRole: "member",
      upstreamEndpoint: "",
      signInIssuer: "",
      quotaDefaultLimit: "20",
      quotaDefaultWindow: "60",
    };
    const saved = await ana.post("/admin/organization/settings", form);
    expect(saved.status).toBe(303);
    const after = (await operator("GET", "/organizations/acme")).body.organization;
    expect(after.settings.emailDomains).toEqual(["acme.example", "acme-shop.example"]);
    expect(after.settings.quotas).toEqual({ default: { limit: 20, windowSeconds: 60 } });
    expect(visibleText((await ana.get("/admin/organization?done=saved")).text)).toContain("The settings were saved");

    const refused = await ana.post("/admin/organization/settings", {
      ...form,
      revision: String(after.revision),
      upstreamEndpoint: "http://orders.acme.example/graphql",
    });
    expect(refused.status).toBe(400);
    expect(visibleText(refused.text)).toContain("upstream.endpoint: must be an https URL");
    const stale = await ana.post("/admin/organization/settings", { ...form, name: "Stale" });
    expect(stale.status).toBe(409);
    expect((await operator("GET", "/organizations/acme")).body.organization.revision).toBe(after.revision);
    const records = await auditEvents("acme", { target: "POST /admin/organization/settings" });
    expect(records.map((record) => record.outcome).sort()).toEqual(["invalid-input", "invalid-input", "ok"]);
  });

  it("stores secrets without showing them, and tests the upstream connection naming what failed", async () => {
    const ana = await signedIn("ana");
    const csrf = await ana.csrf();
    const set = await ana.post("/admin/organization/secret", {
      csrf,
      name: "upstreamCredential",
      value: "acme-credential-42",
    });
    expect(set.status).toBe(303);
    const page = await ana.get("/admin/organization");
    expect(page.text).not.toContain("acme-credential-42");
    expect(visibleText(page.text)).toMatch(/orders API credential: set/);
    const tested = await ana.post("/admin/organization/upstream-test", { csrf });
    expect(tested.status).toBe(200);
    expect(visibleText(tested.text)).toContain("No upstream is set for this organization");
  });

  it("refuses a secret that cannot travel in a header, and a form naming no secret, storing nothing", async () => {
    const ana = await signedIn("ana");
    const csrf = await ana.csrf();
    const before = (await operator("GET", "/organizations/acme/changes")).body.changes.length;
    for (const value of ["token\r\nX-Injected: 1", "tok\u0000en", " token", "tokén"]) {
      const refused = await ana.post("/admin/organization/secret", { csrf, name: "upstreamCredential", value });
      expect(refused.status).toBe(400);
      expect(visibleText(refused.text)).toContain("must be printable ASCII");
    }
    const unknown = await ana.post("/admin/organization/secret", { csrf, name: "password", value: "acme-42" });
    expect(unknown.status).toBe(400);
    expect(visibleText(unknown.text)).toContain("names no secret this page sets");
    const viaApi = await operator("PUT", "/organizations/acme/secrets/upstreamCredential", { value: "a\nb" });
    expect(viaApi.status).toBe(400);
    expect(viaApi.body.code).toBe("invalid_settings");
    expect((await operator("GET", "/organizations/acme/changes")).body.changes.length).toBe(before);
  });

  it("changes a member's role, removes a member, and shows an invitation link once", async () => {
    await operator("PUT", "/organizations/acme/members/mia%40acme.example", { role: "member" });
    const ana = await signedIn("ana");
    const csrf = await ana.csrf();
    expect(
      (await ana.post("/admin/organization/member", { csrf, email: "mia@acme.example", role: "analyst" })).status,
    ).toBe(303);
    const members = (await operator("GET", "/organizations/acme/members")).body.members;
    expect(members.find((m: any) => m.email === "mia@acme.example").role).toBe("analyst");
    expect((await ana.post("/admin/organization/member/remove", { csrf, email: "mia@acme.example" })).status).toBe(303);
    const invited = await ana.post("/admin/organization/invite", {
      csrf,
      inviteEmail: "newbie@acme.example",
      role: "member",
    });
    expect(invited.status).toBe(201);
    expect(invited.text).toMatch(/http:\/\/localhost:8787\/invitations\/[A-Za-z0-9_-]{20,}/);
    expect((await ana.get("/admin/organization")).text).not.toMatch(/\/invitations\/[A-Za-z0-9_-]{20,}/);
    const last = await ana.post("/admin/organization/member/remove", { csrf, email: "ana@acme.example" });
    expect(last.status).toBe(409);
    expect(visibleText(last.text)).toContain("last administrator");
  });

  it(`shows the members ${MEMBERS_PER_PAGE} to a page, by e-mail, with links to the next and the first page`, async () => {
    // Many members written straight into the directory, as an organization of that size holds them.
    await runInDurableObject(env.DIRECTORY.get(env.DIRECTORY.idFromName("directory")), async (_instance, state) => {
      const at = new Date().toISOString();
      for (let i = 0; i < MEMBERS_PER_PAGE + 5; i++)
        state.storage.sql.exec(
          "INSERT OR IGNORE INTO members (organization_id, email, role, status, subject, updated_at) VALUES ('acme', ?, 'member', 'active', NULL, ?)",
          `zz-${String(i).padStart(3, "0")}@acme.example`,
          at,
        );
    });
    const ana = await signedIn("ana");
    const first = await ana.get("/admin/organization");
    const rows = (html: string) => [...html.matchAll(/aria-label="Role of ([^"]+)"/g)].map((m) => m[1]!);
    const firstRows = rows(first.text);
    expect(firstRows).toHaveLength(MEMBERS_PER_PAGE);
    expect(firstRows).toEqual([...firstRows].sort());
    const next = /href="(\/admin\/organization\?membersAfter=[^"#]+)#members-heading">Next members/.exec(first.text);
    expect(next).not.toBeNull();
    const second = await ana.get(next![1]!.replaceAll("&amp;", "&"));
    const secondRows = rows(second.text);
    expect(secondRows.length).toBeGreaterThanOrEqual(5);
    expect(secondRows[0]! > firstRows.at(-1)!).toBe(true);
    expect(secondRows.at(-1)).toBe(`zz-${String(MEMBERS_PER_PAGE + 4).padStart(3, "0")}@acme.example`);
    expect(second.text).toContain('<a href="/admin/organization">First members</a>');
    expect(second.text).not.toContain("Next members");
  });

  it(`shows the change log ${CHANGES_SHOWN} to a page, newest first, with links to older and the newest changes`, async () => {
    // Changes written straight into the log, as an organization with a long history holds them.
    await runInDurableObject(env.DIRECTORY.get(env.DIRECTORY.idFromName("directory")), async (_instance, state) => {
      for (let i = 0; i < CHANGES_SHOWN + 7; i++)
        state.storage.sql.exec(
          "INSERT INTO changes (time, organization_id, actor, action) VALUES (?, 'acme', 'operator', ?)",
          new Date().toISOString(),
          `test.change-${String(i).padStart(3, "0")}`,
        );
    });
    const ana = await signedIn("ana");
    /** The actions of the change-log table, in the order shown. */
    const actions = (html: string) => {
      const section = html.slice(html.indexOf('id="changes-heading"'));
      return [
        ...section.slice(0, section.indexOf("</section>")).matchAll(/<span class="ident mono">([^<]+)<\/span>/g),
      ].map((m) => m[1]!);
    };
    const first = await ana.get("/admin/organization");
    const firstActions = actions(first.text);
    expect(firstActions).toHaveLength(CHANGES_SHOWN);
    expect(firstActions[0]).toBe(`test.change-${String(CHANGES_SHOWN + 6).padStart(3, "0")}`);
    const older = /href="(\/admin\/organization\?changesBefore=\d+)#changes-heading">Older changes/.exec(first.text);
    expect(older).not.toBeNull();
    const second = await ana.get(older![1]!);
    const secondActions = actions(second.text);
    expect(secondActions.slice(0, 7)).toEqual(
      Array.from({ length: 7 }, (_, i) => `test.change-${String(6 - i).padStart(3, "0")}`),
    );
    expect(secondActions.some((action) => firstActions.includes(action))).toBe(false);
    expect(second.text).toContain('<a href="/admin/organization#changes-heading">Newest changes</a>');
    // A value the pager never writes shows the newest changes.
    expect(actions((await ana.get("/admin/organization?changesBefore=-1")).text)).toEqual(firstActions);
  });

  it(`shows invitations ${INVITATIONS_SHOWN} to a page, newest first, and withdraws one that was not used`, async () => {
    // Invitations written straight into the directory, as an organization that invites many people holds them.
    await runInDurableObject(env.DIRECTORY.get(env.DIRECTORY.idFromName("directory")), async (_instance, state) => {
      for (let i = 0; i < INVITATIONS_SHOWN + 3; i++)
        state.storage.sql.exec(
          `INSERT INTO invitations (token_hash, organization_id, email, role, created_by, created_at, expires_at)
           VALUES (?, 'acme', ?, 'member', 'ana', ?, ?)`,
          `c0ffee${String(i).padStart(6, "0")}`.padEnd(64, "0"),
          `invited-${String(i).padStart(3, "0")}@acme.example`,
          new Date().toISOString(),
          Date.now() + 86_400_000,
        );
    });
    const ana = await signedIn("ana");
    const invited = (html: string) =>
      [...html.matchAll(/aria-label="Withdraw the invitation of ([^"]+)"/g)].map((m) => m[1]!);
    const first = await ana.get("/admin/organization");
    const firstRows = invited(first.text);
    expect(firstRows).toHaveLength(INVITATIONS_SHOWN);
    expect(firstRows[0]).toBe(`invited-${String(INVITATIONS_SHOWN + 2).padStart(3, "0")}@acme.example`);
    const older = /href="(\/admin\/organization\?invitationsBefore=\d+)#invitations-heading">Older invitations/.exec(
      first.text,
    );
    expect(older).not.toBeNull();
    const second = invited((await ana.get(older![1]!)).text);
    expect(second.slice(0, 3)).toEqual(["002", "001", "000"].map((n) => `invited-${n}@acme.example`));
    expect(second.some((email) => firstRows.includes(email))).toBe(false);

    const withdrawn = await ana.post("/admin/organization/invitation/withdraw", {
      csrf: await ana.csrf(),
      id: "c0ffee000005",
    });
    expect(withdrawn.status).toBe(303);
    expect(withdrawn.response.headers.get("location")).toBe("/admin/organization?done=invitation-withdrawn");
    const after = await ana.get("/admin/organization?done=invitation-withdrawn");
    expect(visibleText(after.text)).toContain("The invitation was withdrawn");
    expect(invited(after.text)).not.toContain("invited-005@acme.example");
    const again = await ana.post("/admin/organization/invitation/withdraw", {
      csrf: await ana.csrf(),
      id: "c0ffee000005",
    });
    expect(again.status).toBe(404);
    expect(visibleText(again.text)).toContain("No invitation c0ffee000005");
  });

  it("shows another organization's administrator only their own organization", async () => {
    const gus = await signedIn("gus");
    const page = visibleText((await gus.get("/admin/organization")).text);
    expect(page).toMatch(/Globex Retail \(\s*globex\s*\): active/);
    expect(page).not.toContain("acme");
    const mia = await signedIn("dev");
    expect((await mia.get("/admin/organization")).status).toBe(403);
  });
});
