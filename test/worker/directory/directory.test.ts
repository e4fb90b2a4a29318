/**
 * Organizations as data (src/directory/): the seed and the upgrade of an existing deployment, the operator's API, an
 * organization administrator's settings, secrets that never come back, and each effect without a redeploy
 * (suspension, quotas, members, deletion), all through the Worker's front door with real tokens and CI keys.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { rememberGrantHolder } from "../../../src/oauth/grant-holders";
import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import { contractStore } from "../../../src/contracts/store/client";
import { BASE, browserFetch, CookieJar, devSignIn, initializeSession, rpc } from "../helpers";
import { call, callJson, createKey, restToken } from "../contracts-api/api-helpers";
import { ordersContract, text, violatingSnapshot } from "../contracts-api/fixtures";
import { mcpPrincipal, restPrincipal } from "../harness";
import { modernPost } from "../helpers";
import { ordersContract as mcpOrdersContract } from "../contracts-mcp/fixtures";
import { ciPrincipal, uploadContract } from "../contracts-mcp/helpers";
import { operator, OPERATOR_KEY } from "./helpers";
import { acceptFor } from "../../../src/auth/invitations";
import type { Env } from "../../../src/env";
import { changeSettings, deleteOrganization } from "../../../src/organizations/admin";

const INITECH = {
  id: "initech",
  name: "Initech",
  emailDomains: ["initech.example"],
  defaultRole: "member",
  upstream: {
    endpoint: "https://orders.initech.example/graphql",
    credentialScheme: "Bearer",
    organizationHeader: "X-Org",
  },
};

/** The Worker's bindings with an OAuth store whose lists fail: what a platform limit does part-way through a huge organization. */
/** The Worker's env with the organizations' grant sweepers unreachable (their RPC rejects). */
function withUnreachableSweeper(): Env {
  return {
    ...(env as unknown as Env),
    GRANT_SWEEPER: new Proxy(env.GRANT_SWEEPER, {
      get: (target, property) =>
        property === "get"
          ? () => ({ sweep: () => Promise.reject(new Error("sweeper unreachable")) })
          : Reflect.get(target, property).bind(target),
    }),
  };
}

describe("the directory on an upgraded deployment", () => {
  it("seeds acme and globex from policies/ on first start, and data written before keeps working", async () => {
    // Written before anything reads the directory, as an existing deployment's data is before the upgrade.
    const key = await createKey(restPrincipal("ana", "keys.admin"), { projects: ["*"], scopes: ["contracts.read"] });
    const before = (await contractStore(env, "acme").listKeys()) ?? [];
    expect(before.map((record) => record.id)).toContain(key.id);

    const listed = await operator("GET", "/organizations");
    expect(listed.status).toBe(200);
    const byId = Object.fromEntries(listed.body.organizations.map((org: any) => [org.id, org]));
    expect(byId.acme).toMatchObject({
      status: "active",
      seeded: true,
      settings: { name: "Acme Commerce", emailDomains: ["acme.example"], claimValues: ["acme"], defaultRole: "member" },
    });
    expect(byId.globex.settings.emailDomains).toEqual(["globex.example"]);
    // The CI key of before the directory passes the organization gate.
    const projects = await SELF.fetch(`${BASE}/api/v1/projects`, {
      headers: { Authorization: `Bearer ${key.secret}` },
    });
    expect(projects.status).toBe(200);
    const seeded = await operator("GET", "/changes");
    expect(
      seeded.body.changes
        .filter((change: any) => change.action === "organization.seeded")
        .map((c: any) => c.organizationId)
        .sort(),
    ).toEqual(["acme", "globex"]);
  });
});

describe("the operator's API", () => {
  it("answers 401 without the operator key, and never to a member's token", async () => {
    const none = await SELF.fetch(`${BASE}/operator/v1/organizations`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as any).code).toBe("operator_key_required");
    const wrong = await SELF.fetch(`${BASE}/operator/v1/organizations`, {
      headers: { Authorization: `Bearer ${OPERATOR_KEY}x` },
    });
    expect(wrong.status).toBe(401);
    const ana = await restToken("ana", "org.admin");
    const member = await SELF.fetch(`${BASE}/operator/v1/organizations`, {
      headers: { Authorization: `Bearer ${ana}` },
    });
    expect(member.status).toBe(401);
  });

  it("refuses bad settings naming the field and the fix, and stores nothing", async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ ...INITECH, id: "Not An Id" }, "id", /lowercase letters, digits and dashes/],
      // A member's grant user id is `<organization>--<subject>`: these two could read as another organization's.
      [{ ...INITECH, id: "initech--eu" }, "id", /no two dashes in a row/],
      [{ ...INITECH, id: "initech-" }, "id", /starting and ending with a letter or digit/],
      [{ ...INITECH, colour: "blue" }, "", /unknown key colour: remove it/],
      [
        { ...INITECH, upstream: { endpoint: "http://orders.initech.example/graphql" } },
        "upstream.endpoint",
        /https URL/,
      ],
      [{ ...INITECH, upstream: { endpoint: "https://10.0.0.7/graphql" } }, "upstream.endpoint", /public address/],
      [{ ...INITECH, quotas: { default: { limit: 100000, windowSeconds: 60 } } }, "quotas.default", /platform's cap/],
      [{ ...INITECH, roleCaps: { member: ["orders.pii"] } }, "roleCaps.member.0", /at most .*beyond it/],
      [{ ...INITECH, defaultRole: "boss" }, "defaultRole", /unknown role "boss"/],
      [{ ...INITECH, emailDomains: ["not a domain"] }, "emailDomains.0", /expected a domain/],
    ];
    for (const [body, field, message] of cases) {
      const refused = await operator("POST", "/organizations", body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.code).toBe("invalid_settings");
      if (field) expect(refused.body.details).toEqual({ field });
      expect(refused.body.detail).toMatch(message);
    }
    const noProvider = await operator("POST", "/organizations", {
      ...INITECH,
      signIn: { issuer: "https://idp.arbiter-test.invalid", clientId: "arbiter" },
    });
    expect(noProvider.status).toBe(422);
    expect(noProvider.body.code).toBe("identity_provider_unreachable");
    expect(noProvider.body.detail).toContain(
      "https://idp.arbiter-test.invalid/.well-known/openid-configuration must answer",
    );
    const claimed = await operator("POST", "/organizations", { ...INITECH, emailDomains: ["acme.example"] });
    expect(claimed.status).toBe(409);
    expect(claimed.body.code).toBe("domain_claimed");
    expect(claimed.body.detail).toContain("acme.example belongs to another organization");
    expect((await operator("GET", "/organizations/initech")).status).toBe(404);
  });

  it("creates an organization, keeps its secrets write-only and encrypted, and logs every change without them", async () => {
    const created = await operator("POST", "/organizations", INITECH);
    expect(created.status).toBe(201);
    expect(created.body.organization).toMatchObject({ id: "initech", status: "active", revision: 1, seeded: false });
    expect((await operator("POST", "/organizations", INITECH)).body.code).toBe("organization_exists");

    const credential = "initech-upstream-credential-7c1e";
    const set = await operator("PUT", "/organizations/initech/secrets/upstreamCredential", { value: credential });
    expect(set.status).toBe(200);
    expect(set.body.organization.secrets).toEqual({ signInClientSecret: false, upstreamCredential: true });
    expect((await operator("PUT", "/organizations/initech/secrets/password", { value: "x" })).status).toBe(404);

    const shown = JSON.stringify([
      (await operator("GET", "/organizations/initech")).body,
      (await operator("GET", "/organizations/initech/changes")).body,
      (await operator("GET", "/changes")).body,
    ]);
    expect(shown).not.toContain(credential);
    const changes = (await operator("GET", "/organizations/initech/changes")).body.changes;
    expect(changes.map((change: any) => change.action)).toEqual(["secret.upstreamCredential", "organization.created"]);
    expect(changes[0]).toMatchObject({
      actor: "operator",
      before: { upstreamCredential: "unset" },
      after: { upstreamCredential: "set" },
    });

    // At rest: AES-GCM ciphertext, never the value; the hot path gets the value back for the upstream header only.
    const stub = env.DIRECTORY.get(env.DIRECTORY.idFromName("directory"));
    const stored = await runInDurableObject(stub, (_instance, state) =>
      state.storage.sql
        .exec<{ ciphertext: ArrayBuffer }>(`SELECT ciphertext FROM secrets WHERE organization_id = 'initech'`)
        .toArray(),
    );
    expect(stored).toHaveLength(1);
    expect(new TextDecoder().decode(stored[0]!.ciphertext)).not.toContain(credential);
    expect((await stub.resolve("initech"))?.upstreamCredential).toBe(credential);
  });

  it("changes settings with If-Match, refusing a stale revision and leaving the stored ones as they were", async () => {
    const current = (await operator("GET", "/organizations/initech")).body.organization;
    const stale = await operator(
      "PATCH",
      "/organizations/initech",
      { name: "Initech Ltd" },
      { "If-Match": `"${current.revision - 1}"` },
    );
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("stale_revision");
    const changed = await operator(
      "PATCH",
      "/organizations/initech",
      { name: "Initech Ltd" },
      { "If-Match": `"${current.revision}"` },
    );
    expect(changed.status).toBe(200);
    expect(changed.body.organization.settings.name).toBe("Initech Ltd");
    expect(changed.body.organization.settings.upstream.endpoint).toBe(INITECH.upstream.endpoint);
    expect(changed.body.organization.revision).toBe(current.revision + 1);
  });
});

describe("an organization administrator (org.admin)", () => {
  it("reads and changes only their own organization; the operator's settings stay the operator's", async () => {
    const ana = await restToken("ana", "org.admin");
    const gus = await restToken("gus", "org.admin");
    const mine = await callJson(ana, "GET", "/organization");
    expect(mine.body.organization.id).toBe("acme");
    expect((await callJson(gus, "GET", "/organization")).body.organization.id).toBe("globex");

    const renamed = await callJson(ana, "PATCH", "/organization", { name: "Acme Commerce GmbH" });
    expect(renamed.status).toBe(200);
    expect((await operator("GET", "/organizations/acme")).body.organization.settings.name).toBe("Acme Commerce GmbH");
    expect((await operator("GET", "/organizations/globex")).body.organization.settings.name).toBe("Globex Retail");

    const claims = await call(ana, "PATCH", "/organization", { claimValues: ["globex"] });
    expect(claims.status).toBe(403);
    expect(((await claims.json()) as any).code).toBe("operator_only_setting");
    const stolen = await call(ana, "PATCH", "/organization", { emailDomains: ["acme.example", "globex.example"] });
    expect(stolen.status).toBe(409);

    // Without org.admin: the step-up challenge, as for every scope.
    const mia = await restToken("mia", "contracts.read");
    const refused = await call(mia, "GET", "/organization");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain("org.admin");
  });

  it("a lower quota applies to the next calls, with no redeploy", async () => {
    const ana = await restToken("ana", "org.admin contracts.read");
    expect(
      (await callJson(ana, "PATCH", "/organization", { quotas: { rest: { limit: 3, windowSeconds: 60 } } })).status,
    ).toBe(200);
    const dev = await restToken("dev", "contracts.read");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(dev, "GET", "/projects")).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await callJson(ana, "PATCH", "/organization", { quotas: null })).status).toBe(200);
    expect((await call(dev, "GET", "/projects")).status).toBe(200);
  });

  it("writes nothing for a change that changes nothing: same revision, no change-log entry", async () => {
    const ana = await restToken("ana", "org.admin");
    const logLength = async () => (await operator("GET", "/organizations/acme/changes?limit=200")).body.changes.length;
    const renamed = await callJson(ana, "PATCH", "/organization", { name: "Acme Idempotent" });
    expect(renamed.status).toBe(200);
    const revision = renamed.body.organization.revision;
    const entries = await logLength();
    // The same patch again, and the whole settings applied as they are (`arbiter org apply` run twice).
    const again = await callJson(ana, "PATCH", "/organization", { name: "Acme Idempotent" });
    expect(again.status).toBe(200);
    expect(again.body.organization.revision).toBe(revision);
    const settings = (await callJson(ana, "GET", "/organization")).body.organization.settings;
    const applied = await callJson(ana, "PUT", "/organization", settings);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.organization.revision).toBe(revision);
    // A member put again with the role they have.
    const email = "same-role%40acme.example";
    expect((await operator("PUT", `/organizations/acme/members/${email}`, { role: "member" })).status).toBe(200);
    const afterMember = await logLength();
    expect(afterMember).toBe(entries + 1);
    const twice = await operator("PUT", `/organizations/acme/members/${email}`, { role: "member" });
    expect(twice.status).toBe(200);
    expect(twice.body.member).toMatchObject({ email: "same-role@acme.example", role: "member", status: "active" });
    expect(await logLength()).toBe(afterMember);
    // A stale revision is still refused, changed or not.
    const stale = await call(ana, "PATCH", "/organization", { name: "Acme Idempotent" }, { "If-Match": '"1"' });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { code: string }).code).toBe("stale_revision");
  });

  it("pages the change logs newest first: ?limit= and ?before=, nextBefore null on the last page", async () => {
    const ana = await restToken("ana", "org.admin");
    for (const name of ["log-1", "log-2", "log-3", "log-4", "log-5"])
      expect(
        (await operator("PUT", `/organizations/acme/members/${name}%40acme.example`, { role: "member" })).status,
      ).toBe(200);
    type Page = { status: number; body: { changes: Array<{ seq: number }>; nextBefore: number | null } };
    /** Every page of `path` at `limit` per page, following nextBefore; the seqs in the order answered. */
    const walk = async (get: (path: string) => Promise<Page>, path: string, limit: number) => {
      const seqs: number[] = [];
      let before: number | null = null;
      for (let page = 0; page < 200; page++) {
        const listed = await get(`${path}?limit=${limit}${before === null ? "" : `&before=${before}`}`);
        expect(listed.status).toBe(200);
        expect(listed.body.changes.length).toBeLessThanOrEqual(limit);
        seqs.push(...listed.body.changes.map((change) => change.seq));
        before = listed.body.nextBefore;
        if (before === null) return seqs;
      }
      throw new Error("the pages never ended");
    };
    const restGet = (path: string) => callJson(ana, "GET", path) as Promise<Page>;
    const operatorGet = (path: string) => operator("GET", path) as Promise<Page>;
    for (const [get, path] of [
      [restGet, "/organization/changes"],
      [operatorGet, "/organizations/acme/changes"],
      [operatorGet, "/changes"],
    ] as const) {
      const whole = (await get(path)).body;
      expect(whole.changes.length).toBeGreaterThanOrEqual(6);
      expect(whole.nextBefore).toBeNull();
      const all = whole.changes.map((change) => change.seq);
      expect(all).toEqual([...all].sort((a, b) => b - a));
      expect(await walk(get, path, 2), path).toEqual(all);
      const bad = await get(`${path}?before=-3`);
      expect(bad.status).toBe(400);
      expect((bad.body as unknown as { code: string }).code).toBe("invalid_query");
    }
    // Another organization's changes never show in acme's log, on any page.
    const acmeOnly = await walk(restGet, "/organization/changes", 3);
    const globex = (await operatorGet("/organizations/globex/changes")).body.changes.map((change) => change.seq);
    expect(acmeOnly.filter((seq) => globex.includes(seq))).toEqual([]);
  });

  it("pages the members by e-mail: ?limit= names nextAfter, the ?after= of the next page, null on the last", async () => {
    const ana = await restToken("ana", "org.admin");
    for (const name of ["pg-1", "pg-2", "pg-3"])
      expect(
        (await operator("PUT", `/organizations/acme/members/${name}%40acme.example`, { role: "member" })).status,
      ).toBe(200);
    const whole = await callJson(ana, "GET", "/organization/members");
    expect(whole.body.nextAfter).toBeNull();
    const all = whole.body.members.map((member: { email: string }) => member.email);
    expect(all).toEqual([...all].sort());
    const paged: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 50; page++) {
      const path = `/organization/members?limit=2${after === null ? "" : `&after=${encodeURIComponent(after)}`}`;
      const listed: { status: number; body: { members: Array<{ email: string }>; nextAfter: string | null } } =
        await callJson(ana, "GET", path);
      expect(listed.status).toBe(200);
      expect(listed.body.members.length).toBeLessThanOrEqual(2);
      paged.push(...listed.body.members.map((member) => member.email));
      after = listed.body.nextAfter;
      if (after === null) break;
    }
    expect(paged).toEqual(all);
    const bad = await callJson(ana, "GET", `/organization/members?limit=2&after=${"x".repeat(400)}`);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_query");
    // The operator's list of the same members pages the same way.
    const first = await operator("GET", "/organizations/acme/members?limit=2");
    expect(first.body.members.map((member: { email: string }) => member.email)).toEqual(all.slice(0, 2));
    const second = await operator(
      "GET",
      `/organizations/acme/members?limit=2&after=${encodeURIComponent(first.body.nextAfter)}`,
    );
    expect(second.body.members.map((member: { email: string }) => member.email)).toEqual(all.slice(2, 4));
    expect((await operator("GET", "/organizations/acme/members")).body).toEqual({
      members: whole.body.members,
      nextAfter: null,
    });
    expect((await operator("GET", "/organizations/acme/members?limit=0")).body.code).toBe("invalid_query");
  });

  it("pages the operator's list of organizations by id, every one without ?limit=", async () => {
    const whole = await operator("GET", "/organizations");
    expect(whole.status).toBe(200);
    expect(whole.body.nextAfter).toBeNull();
    const all = whole.body.organizations.map((organization: { id: string }) => organization.id);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(all).toEqual([...all].sort());
    const paged: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 50; page++) {
      const listed = await operator("GET", `/organizations?limit=2${after === null ? "" : `&after=${after}`}`);
      expect(listed.status).toBe(200);
      expect(listed.body.organizations.length).toBeLessThanOrEqual(2);
      paged.push(...listed.body.organizations.map((organization: { id: string }) => organization.id));
      after = listed.body.nextAfter;
      if (after === null) break;
    }
    expect(paged).toEqual(all);
    const bad = await operator("GET", "/organizations?after=Not%20An%20Id");
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_query");
    expect(bad.body.detail).toContain("an organization id");
  });

  it("removing a member ends their grants at once; they cannot sign in again; the last administrator stays", async () => {
    const ana = await restToken("ana", "org.admin");
    const mia = await restToken("mia", "contracts.read");
    expect((await call(mia, "GET", "/projects")).status).toBe(200);
    const members = (await callJson(ana, "GET", "/organization/members")).body.members;
    expect(members.map((member: any) => member.email)).toEqual(
      expect.arrayContaining(["ana@acme.example", "mia@acme.example"]),
    );

    const removed = await callJson(ana, "DELETE", "/organization/members/mia%40acme.example");
    expect(removed.status).toBe(200);
    expect(removed.body.grantsRevoked).toBeGreaterThanOrEqual(1);
    expect((await call(mia, "GET", "/projects")).status).toBe(401);
    await expect(restToken("mia", "contracts.read")).rejects.toThrow();

    const last = await callJson(ana, "DELETE", "/organization/members/ana%40acme.example");
    expect(last.status).toBe(409);
    expect(last.body.code).toBe("last_admin");
    // Invited back, with a role: she signs in again.
    expect((await callJson(ana, "PUT", "/organization/members/mia%40acme.example", { role: "member" })).status).toBe(
      200,
    );
    expect((await call(await restToken("mia", "contracts.read"), "GET", "/projects")).status).toBe(200);
  });

  it("a lower role ends the grants beyond it", async () => {
    const ana = await restToken("ana", "org.admin");
    const analyst = await restToken("dev", "contracts.read contracts.write");
    expect((await call(analyst, "GET", "/projects")).status).toBe(200);
    const lowered = await callJson(ana, "PUT", "/organization/members/dani%40acme.example", { role: "member" });
    expect(lowered.status).toBe(200);
    expect(lowered.body.grantsRevoked).toBe(1);
    expect((await call(analyst, "GET", "/projects")).status).toBe(401);
  });
});

describe("invitations", () => {
  it("a single-use, expiring link makes the invited person a member, even where only members may sign in", async () => {
    const ana = await restToken("ana", "org.admin");
    expect((await callJson(ana, "PATCH", "/organization", { membersOnly: true })).status).toBe(200);
    expect((await callJson(ana, "DELETE", "/organization/members/mia%40acme.example")).status).toBe(200);
    // Not on the list: sign-in is refused.
    const refused = await devSignIn(new CookieJar(), "mia", "/admin");
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("removed from this organization");

    const created = await callJson(ana, "POST", "/organization/invitations", {
      email: "Mia@acme.example",
      role: "analyst",
    });
    expect(created.status).toBe(201);
    expect(created.body.invitation).toMatchObject({ email: "mia@acme.example", role: "analyst", status: "pending" });
    const link = new URL(created.body.link);
    const listed = (await callJson(ana, "GET", "/organization/invitations")).body.invitations;
    expect(JSON.stringify(listed)).not.toContain(link.pathname.split("/").pop());

    const jar = new CookieJar();
    const page = await browserFetch(jar, link.pathname);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/mia@acme.example is invited to Acme[^<]* with the role <strong>analyst/);
    const accept = await browserFetch(jar, link.pathname, { method: "POST", headers: { Origin: BASE } });
    expect(accept.status).toBe(303);
    expect(accept.headers.get("location")).toBe("/signin?return=%2Finvitations%2Faccepted");
    const signedIn = await devSignIn(jar, "mia", "/invitations/accepted");
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe("/invitations/accepted");
    expect(jar.has("__Host-arbiter-invitation")).toBe(false);
    expect(await (await browserFetch(jar, "/invitations/accepted")).text()).toContain("<strong>analyst</strong>");
    const members = (await callJson(ana, "GET", "/organization/members")).body.members;
    expect(members.find((m: any) => m.email === "mia@acme.example")).toMatchObject({
      role: "analyst",
      status: "active",
    });

    // Used once: a second use is refused; the invitation list says so.
    const again = await browserFetch(new CookieJar(), link.pathname);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("already used");
    expect((await callJson(ana, "GET", "/organization/invitations")).body.invitations[0].status).toBe("used");

    // Another person signing in with someone else's link is refused, and stays out.
    const forMia = await callJson(ana, "POST", "/organization/invitations", {
      email: "mia@acme.example",
      role: "admin",
    });
    const other = new CookieJar();
    const path = new URL(forMia.body.link).pathname;
    await browserFetch(other, path, { method: "POST", headers: { Origin: BASE } });
    const wrong = await devSignIn(other, "dev", "/invitations/accepted");
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toContain("another e-mail address");

    // Expired: refused with its date.
    const stub = env.DIRECTORY.get(env.DIRECTORY.idFromName("directory"));
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec(`UPDATE invitations SET expires_at = 0 WHERE used_at IS NULL`);
    });
    const expired = await browserFetch(new CookieJar(), path);
    expect(expired.status).toBe(409);
    expect(await expired.text()).toContain("expired");
    expect((await browserFetch(new CookieJar(), "/invitations/not-a-real-invitation-token-000")).status).toBe(404);
    expect((await callJson(ana, "PATCH", "/organization", { membersOnly: false })).status).toBe(200);
  });

  it("keeps used and expired invitations 30 days after they were made, and every pending one", async () => {
    const ana = await restToken("ana", "org.admin");
    const stub = env.DIRECTORY.get(env.DIRECTORY.idFromName("directory"));
    const day = 24 * 60 * 60 * 1000;
    const made = (daysAgo: number) => new Date(Date.now() - daysAgo * day).toISOString();
    // Rows as time leaves them: used or expired long ago, expired lately, and pending from long ago (still valid).
    const rows: Array<[string, string, number, string | null]> = [
      ["old-used", made(40), Date.now() + day, made(39)],
      ["old-expired", made(40), Date.now() - 33 * day, null],
      ["recent-expired", made(10), Date.now() - 3 * day, null],
      ["old-pending", made(40), Date.now() + day, null],
    ];
    await runInDurableObject(stub, (_instance, state) => {
      for (const [name, createdAt, expiresAt, usedAt] of rows)
        state.storage.sql.exec(
          `INSERT INTO invitations (token_hash, organization_id, email, role, created_by, created_at, expires_at, used_at)
           VALUES (?, 'acme', ?, 'member', 'ana', ?, ?, ?)`,
          name.padEnd(64, "0"),
          `${name}@acme.example`,
          createdAt,
          expiresAt,
          usedAt,
        );
    });
    const listed = async () =>
      (await callJson(ana, "GET", "/organization/invitations")).body.invitations.map((i: any) => i.email);
    expect(await listed()).toEqual(expect.arrayContaining(rows.map(([name]) => `${name}@acme.example`)));
    expect(
      (await callJson(ana, "POST", "/organization/invitations", { email: "kept@acme.example", role: "member" })).status,
    ).toBe(201);
    const after = await listed();
    expect(after).toEqual(
      expect.arrayContaining(["kept@acme.example", "recent-expired@acme.example", "old-pending@acme.example"]),
    );
    expect(after).not.toContain("old-used@acme.example");
    expect(after).not.toContain("old-expired@acme.example");
  });

  it("is used only by a verified address: an unverified one is told why, and the invitation stays pending", async () => {
    const ana = await restToken("ana", "org.admin");
    const created = await callJson(ana, "POST", "/organization/invitations", {
      email: "ivy@acme.example",
      role: "analyst",
    });
    expect(created.status).toBe(201);
    const token = new URL(created.body.link).pathname.split("/").pop()!;
    // What an OpenID Connect sign-in makes of a provider that sends ivy's address with email_verified: false.
    const identity = {
      subject: "ivy-sub",
      name: "Ivy",
      organizationId: "acme",
      role: "member",
      method: "oidc" as const,
    };
    const refused = await acceptFor(env, token, { ...identity, emailUnverified: true });
    expect(refused?.status).toBe(403);
    expect(await refused!.text()).toContain("marks your e-mail address as not verified");
    const invitations = (await callJson(ana, "GET", "/organization/invitations")).body.invitations;
    expect(invitations.find((i: any) => i.email === "ivy@acme.example")).toMatchObject({ status: "pending" });

    // The same invitation, from a sign-in whose address the provider vouches for.
    expect(await acceptFor(env, token, { ...identity, email: "ivy@acme.example" })).toBeUndefined();
    const members = (await callJson(ana, "GET", "/organization/members")).body.members;
    expect(members.find((m: any) => m.email === "ivy@acme.example")).toMatchObject({
      role: "analyst",
      subject: "ivy-sub",
    });
  });
});

describe("suspension and deletion", () => {
  it("a suspended organization's tokens and CI keys are refused on both resources until it is resumed", async () => {
    const gus = await restToken("gus", "contracts.read keys.admin");
    const key = await createKey(gus, { projects: ["*"], scopes: ["contracts.read"] });
    expect((await operator("POST", "/organizations/globex/suspend")).body.organization.status).toBe("suspended");
    for (const credential of [gus, key.secret]) {
      const refused = await SELF.fetch(`${BASE}/api/v1/projects`, {
        headers: { Authorization: `Bearer ${credential}` },
      });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as any).code).toBe("organization_suspended");
    }
    // acme is untouched.
    expect((await call(await restToken("ana", "contracts.read"), "GET", "/projects")).status).toBe(200);
    expect((await operator("POST", "/organizations/globex/resume")).body.organization.status).toBe("active");
    expect((await call(gus, "GET", "/projects")).status).toBe(200);
  });

  it("suspension ends the organization's open listen streams at once", async () => {
    await uploadContract(ciPrincipal("gus"), "orders", mcpOrdersContract());
    const stream = await modernPost(mcpPrincipal("gus", "contracts.read"), "subscriptions/listen", {
      notifications: { resourceSubscriptions: ["spec://projects/orders/verdicts/latest"] },
    });
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const body = stream.body!.getReader();
    let text = "";
    while (!text.includes("\n\n")) text += new TextDecoder().decode((await body.read()).value);
    expect((await operator("POST", "/organizations/globex/suspend")).status).toBe(200);
    let ended = false;
    for (let i = 0; i < 20 && !ended; i++) ended = (await body.read()).done;
    expect(ended).toBe(true);
    expect((await operator("POST", "/organizations/globex/resume")).status).toBe(200);
  });

  it("begins a deletion and answers it even when its grant sweep cannot start", async () => {
    const id = "wayne";
    expect((await operator("POST", "/organizations", { id, name: "Wayne" })).status).toBe(201);
    expect((await operator("GET", `/organizations/${id}/export`)).status).toBe(200);
    const failing = withUnreachableSweeper();
    const deleting = await deleteOrganization(failing, id);
    expect(deleting.status).toBe("deleting");
    // Refused everywhere from now on: the organization gate reads the directory, not the OAuth store.
    expect((await operator("GET", `/organizations/${id}`)).body.organization.status).toBe("deleting");
  });

  it("deletes an organization only after its export, then removes its data and keeps the record of the deletion", async () => {
    const id = "umbrella";
    expect(
      (await operator("POST", "/organizations", { id, name: "Umbrella", emailDomains: ["umbrella.example"] })).status,
    ).toBe(201);
    // Its data, written as its CI would write it.
    await contractStore(env, id).createKey({
      id: "k1",
      name: "ci",
      projects: ["*"],
      scopes: ["contracts.read"],
      secretHash: "0".repeat(64),
      createdBy: "operator",
      expiresAt: null,
    });
    // A member who signed in (the directory notes the subject beside the member row).
    const stub = env.DIRECTORY.get(env.DIRECTORY.idFromName("directory"));
    expect(await stub.admit(id, "una@umbrella.example", "una-subject", "member")).toEqual({ ok: true, role: "member" });
    // An administrator and an invitation: both write addresses into the change log, the invitation into its table.
    expect(
      (await operator("PUT", `/organizations/${id}/members/ada%40umbrella.example`, { role: "admin" })).status,
    ).toBe(200);
    const invited = await stub.invite(id, "ivo@umbrella.example", "member", "f".repeat(64), Date.now() + 60_000, "ada");
    expect(invited.ok).toBe(true);
    expect(JSON.stringify((await operator("GET", `/organizations/${id}/changes`)).body)).toContain("@umbrella.example");
    expect((await operator("DELETE", `/organizations/${id}`)).body.code).toBe("export_required");
    const archive = await operator("GET", `/organizations/${id}/export`);
    expect(archive.status).toBe(200);
    expect(archive.body.format).toBe("arbiter-organization-export/1");
    expect(JSON.stringify(archive.body.contracts)).toContain('"k1"');

    // A member who completed a grant: the connected-clients index keeps their display name.
    await rememberGrantHolder(env, { organizationId: id, subject: "una-subject", name: "Una Umbrella" });
    const indexed = async () =>
      (await env.OAUTH_KV.list({ prefix: `arbiter:grant-holders:v1:${id}:` })).keys.map((key) => key.name);
    expect(await indexed()).toHaveLength(1);

    expect((await operator("PUT", "/caps", { deletionGraceDays: 0 })).status).toBe(200);
    const deleted = await operator("DELETE", `/organizations/${id}`);
    expect(deleted.status).toBe(202);
    expect(await indexed()).toEqual([]);
    expect(await contractStore(env, id).exportTableNames()).toEqual([]);
    const left = await runInDurableObject(stub, (_instance, state) =>
      ["members", "member_subjects", "invitations"].map(
        (table) =>
          state.storage.sql
            .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE organization_id = ?`, id)
            .one().n,
      ),
    );
    expect(left).toEqual([0, 0, 0]);
    expect((await operator("GET", `/organizations/${id}`)).status).toBe(404);
    const changes = (await operator("GET", `/organizations/${id}/changes`)).body.changes;
    const log = changes.map((c: any) => c.action);
    expect(log.slice(0, 3)).toEqual(["organization.deleted", "organization.deletion-started", "organization.exported"]);
    expect(log).toEqual(expect.arrayContaining(["member.added", "invitation.created", "organization.created"]));
    // What happened and when stays; whom it named does not.
    expect(JSON.stringify(changes)).not.toContain("@umbrella.example");
    expect(changes.find((c: any) => c.action === "invitation.created")).toMatchObject({
      actor: "(member)",
      before: null,
      after: null,
    });
    // The id is not reused, and its domain is free again.
    expect((await operator("POST", "/organizations", { id, name: "Umbrella 2" })).body.code).toBe(
      "organization_exists",
    );
    expect(
      (await operator("POST", "/organizations", { id: "umbrella-2", name: "U2", emailDomains: ["umbrella.example"] }))
        .status,
    ).toBe(201);
    expect((await operator("PUT", "/caps", {})).body.caps.deletionGraceDays).toBe(7);
  });
});

describe("an organization's data policy", () => {
  it("masks more fields than the platform's floor, never fewer, in the order tools' answers", async () => {
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ "Order.customerName": { unmaskScope: "orders.read" } }, /masks this field already/],
      [{ "Order.total": { unmaskScope: "orders.pii" } }, /only String and ID fields.*Float/],
      [{ "Order.nothing": { unmaskScope: "orders.pii" } }, /no such field/],
      [{ "Order.currency": { unmaskScope: "orders.everything" } }, /unknown scope "orders.everything"/],
    ];
    for (const [sensitiveFields, message] of refusals) {
      const refused = await operator("PATCH", "/organizations/acme", { dataPolicy: { sensitiveFields } });
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toMatch(message);
    }
    const set = await operator("PATCH", "/organizations/acme", {
      dataPolicy: {
        sensitiveFields: { "Order.currency": { unmaskScope: "orders.pii", reason: "pricing is internal" } },
      },
    });
    expect(set.status).toBe(200);

    const orderOf = async (user: string, scope: string) => {
      const token = mcpPrincipal(user, scope);
      const session = await initializeSession(token);
      const reply = await rpc(token, session, "tools/call", {
        name: "orders_get_by_id",
        arguments: { id: "ord_1002" },
      });
      return reply.result as {
        structuredContent: { orderById: Record<string, unknown> };
        _meta: { maskedFields: string[] };
      };
    };
    const member = await orderOf("dev", "orders.read");
    expect(member.structuredContent.orderById).toMatchObject({
      currency: "[masked]",
      customerName: "[masked]",
      total: 89.9,
    });
    expect(member._meta.maskedFields).toEqual(expect.arrayContaining(["Order.currency", "Order.customerName"]));
    const analyst = await orderOf("ana", "orders.read orders.pii");
    expect(analyst.structuredContent.orderById.currency).toBe("BRL");
    // globex keeps the platform's policy only.
    const gus = mcpPrincipal("gus", "orders.read orders.search");
    const searched = await rpc(gus, await initializeSession(gus), "tools/call", {
      name: "orders_search",
      arguments: { limit: 3 },
    });
    const orders = searched.result.structuredContent.orders as Array<{ currency: string }>;
    expect(orders.length).toBeGreaterThan(0);
    expect(orders.every((order) => order.currency === "USD")).toBe(true);
    expect((await operator("PATCH", "/organizations/acme", { dataPolicy: null })).status).toBe(200);
  });
});

describe("an organization's conformance policy", () => {
  it("sets its own severities and exemptions over the platform's, for its verdicts only", async () => {
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ rules: { "no-such-rule": "off" } }, /conformance.rules.no-such-rule: unknown conformance rule/],
      [
        { exemptions: [{ rule: "*", operation: "FETCH", reason: "because" }] },
        /exemptions.0.operation: expected an operation pattern/,
      ],
      [
        { constitution: { "max-path-depth": { maxSegments: "many" } } },
        /conformance.constitution.max-path-depth.maxSegments/,
      ],
    ];
    for (const [conformance, message] of bad) {
      const refused = await operator("PATCH", "/organizations/acme", { conformance });
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toMatch(message);
    }
    const writer = (user: string) => restPrincipal(user, "contracts.read contracts.write snapshots.write");
    for (const user of ["ana", "gus"]) {
      expect(
        (await callJson(writer(user), "POST", "/projects/policy-shop/contracts", text(ordersContract()))).status,
      ).toBe(201);
    }
    const verdictOf = async (user: string) =>
      (await callJson(writer(user), "POST", "/projects/policy-shop/snapshots?commit=c1", text(violatingSnapshot())))
        .body;
    // The snapshot drops an operation of the contract: missing-operation, an error by the platform's policy.
    expect((await verdictOf("ana")).verdict.approved).toBe(false);
    const set = await operator("PATCH", "/organizations/acme", {
      conformance: {
        exemptions: [{ rule: "missing-operation", operation: "GET /orders/*", reason: "served by the legacy gateway" }],
      },
    });
    expect(set.status).toBe(200);
    expect((await verdictOf("ana")).verdict.approved).toBe(true);
    expect((await verdictOf("gus")).verdict.approved).toBe(false);
    expect((await operator("PATCH", "/organizations/acme", { conformance: null })).status).toBe(200);
  });
});

describe("the consent page follows the organization's role caps", () => {
  it("offers no scope beyond the cap", async () => {
    expect(
      (await operator("PATCH", "/organizations/acme", { roleCaps: { admin: ["contracts.read", "org.admin"] } })).status,
    ).toBe(200);
    const token = await restToken("ana", "contracts.read contracts.write org.admin");
    const who = (await callJson(token, "GET", "/whoami")).body;
    expect([...who.scopes].sort()).toEqual(["contracts.read", "org.admin"]);
    expect((await operator("PATCH", "/organizations/acme", { roleCaps: null })).status).toBe(200);
  });

  it("takes a scope a cap no longer allows from the grants members hold now, and leaves the others", async () => {
    // Dani (developer) holds two grants: one that writes contracts, one that only reads them.
    const listed = await operator("PUT", "/organizations/acme/members/dani%40acme.example", { role: "developer" });
    expect(listed.status).toBe(200);
    const writes = await restToken("dev", "contracts.read contracts.write");
    expect((await callJson(writes, "GET", "/whoami")).body.scopes).toContain("contracts.write");
    const reads = await restToken("dev", "contracts.read");
    const admin = await restToken("ana", "contracts.read contracts.write");
    for (const token of [writes, reads, admin]) expect((await call(token, "GET", "/whoami")).status).toBe(200);

    const capped = await operator("PATCH", "/organizations/acme", {
      roleCaps: { developer: ["orders.read", "orders.search", "contracts.read", "offline_access"] },
    });
    expect(capped.status).toBe(200);
    expect((await call(writes, "GET", "/whoami")).status).toBe(401);
    expect((await call(reads, "GET", "/whoami")).status).toBe(200);
    // Another role's cap did not change: its grants stay whole.
    expect((await call(admin, "GET", "/whoami")).status).toBe(200);
    expect((await operator("PATCH", "/organizations/acme", { roleCaps: null })).status).toBe(200);
  });

  it("stores a narrowed cap and answers it even when its grant sweep cannot start: requests hold tokens to it", async () => {
    const token = await restToken("ana", "contracts.read contracts.write");
    const failing = withUnreachableSweeper();
    const cap = ["orders.read", "orders.search", "contracts.read", "keys.admin", "org.admin"];
    const changed = await changeSettings(failing, "acme", { roleCaps: { admin: cap } }, { kind: "operator" });
    try {
      expect(changed.settings.roleCaps).toEqual({ admin: cap });
      // The grant was not revoked, but the capped scope is refused on it.
      const who = await callJson(token, "GET", "/whoami");
      expect(who.status).toBe(200);
      expect(who.body.scopes).not.toContain("contracts.write");
    } finally {
      expect((await operator("PATCH", "/organizations/acme", { roleCaps: null })).status).toBe(200);
    }
  });
});
