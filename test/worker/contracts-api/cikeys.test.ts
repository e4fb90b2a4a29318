import { env, runInDurableObject } from "cloudflare:test";
import { SELF } from "../self";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env as WorkerEnv } from "../../../src/env";
import { mcpPost } from "../helpers";
import { MAX_ACTIVE_KEYS } from "../../../src/contracts/store/limits";
import { call, callJson, createKey, restToken } from "./api-helpers";
import { operator } from "../directory/helpers";
import { organizationStore } from "./stores";

let ana: string;
let gus: string;

function storeOf(organization: string) {
  const bindings = env as unknown as WorkerEnv;
  return bindings.CONTRACT_STORE.get(bindings.CONTRACT_STORE.idFromName(organization));
}

/** Every stored value as text, binary columns decoded too, so a secret cannot hide in a BLOB. */
function asText(value: unknown): string {
  if (value instanceof ArrayBuffer) return new TextDecoder().decode(value);
  return String(value);
}

beforeAll(async () => {
  ana = await restToken("ana", "keys.admin contracts.read");
  gus = await restToken("gus", "keys.admin contracts.read");
});

describe("CI keys", () => {
  it("are created by an admin, shown once, listed without secrets and usable on the REST API", async () => {
    const created = await callJson(ana, "POST", "/keys", {
      name: "orders CI",
      projects: ["orders"],
      scopes: ["snapshots.write", "contracts.read"],
    });
    expect(created.status).toBe(201);
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^arb_ci_acme_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(created.body.key).toMatchObject({
      name: "orders CI",
      projects: ["orders"],
      scopes: ["snapshots.write", "contracts.read"],
      status: "active",
      createdBy: expect.stringContaining("ana"),
    });

    const listed = await call(ana, "GET", "/keys");
    const text = await listed.text();
    expect(listed.status).toBe(200);
    expect(text).toContain(created.body.key.id);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(-43));
    expect(text).not.toMatch(/sha256:|secret/i);

    const whoami = await callJson(secret, "GET", "/whoami");
    expect(whoami.status).toBe(200);
    expect(whoami.body).toMatchObject({
      organization: { id: "acme" },
      clientId: `ci-key:${created.body.key.id}`,
      scopes: ["snapshots.write", "contracts.read"],
    });
  });

  it("are stored only as the SHA-256 of the whole key: no column holds the secret or a piece of it", async () => {
    const { id, secret } = await createKey(ana, {
      name: "hash check",
      projects: ["orders"],
      scopes: ["contracts.read"],
    });
    const random = secret.slice(-43);
    const pieces = Array.from({ length: random.length - 7 }, (_, i) => random.slice(i, i + 8));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret)));
    const expectedHash = `sha256:${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}`;

    const { row, everyValue } = await runInDurableObject(storeOf("acme"), (_instance, state) => {
      const sql = state.storage.sql;
      const keyRow = sql.exec<Record<string, SqlStorageValue>>("SELECT * FROM ci_keys WHERE id = ?", id).toArray()[0];
      // Beyond ci_keys: no table of the organization's store may hold the secret either.
      const tables = sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
        )
        .toArray()
        .map((t) => t.name);
      const values: unknown[] = [];
      for (const table of tables)
        for (const r of sql.exec(`SELECT * FROM "${table}"`)) values.push(...Object.values(r));
      return { row: keyRow, everyValue: values.map(asText) };
    });
    expect(row).toBeDefined();
    expect(row!.secret_hash).toBe(expectedHash);
    for (const [column, value] of Object.entries(row!)) {
      const text = asText(value);
      expect(text, column).not.toContain(random);
      for (const piece of pieces) expect(text.includes(piece), `${column} holds ${piece}`).toBe(false);
    }
    expect(everyValue.length).toBeGreaterThan(0);
    for (const text of everyValue) for (const piece of pieces) expect(text.includes(piece)).toBe(false);
  });

  it("never reach /mcp", async () => {
    const { secret } = await createKey(ana, { projects: ["*"], scopes: ["contracts.read"] });
    const response = await mcpPost(secret, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(response.status).toBe(401);
  });

  it("are refused with a wrong secret or a malformed value", async () => {
    const { secret } = await createKey(ana, { projects: ["*"], scopes: ["contracts.read"] });
    const last = secret.at(-1) === "A" ? "B" : "A";
    expect((await call(`${secret.slice(0, -1)}${last}`, "GET", "/whoami")).status).toBe(401);
    expect((await call(secret.replace("arb_ci_acme_", "arb_ci_globex_"), "GET", "/whoami")).status).toBe(401);
    expect((await call("arb_ci_nonsense", "GET", "/whoami")).status).toBe(401);
  });

  it("stop working when revoked, and revocation is recorded", async () => {
    const { id, secret } = await createKey(ana, { projects: ["*"], scopes: ["contracts.read"] });
    expect((await call(secret, "GET", "/whoami")).status).toBe(200);
    const revoked = await callJson(ana, "DELETE", `/keys/${id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.key).toMatchObject({ id, status: "revoked", revokedBy: expect.stringContaining("ana") });
    expect(revoked.body.key.revokedAt).toEqual(expect.any(String));
    expect((await call(secret, "GET", "/whoami")).status).toBe(401);
    const listed = await callJson(ana, "GET", "/keys");
    expect(listed.body.keys.find((k: { id: string }) => k.id === id)).toMatchObject({ status: "revoked" });
  });

  it("stop working after their expiry", async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const { id, secret } = await createKey(ana, { projects: ["*"], scopes: ["contracts.read"], expiresAt });
    expect((await call(secret, "GET", "/whoami")).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now() + 50)));
    expect((await call(secret, "GET", "/whoami")).status).toBe(401);
    const listed = await callJson(ana, "GET", "/keys");
    expect(listed.body.keys.find((k: { id: string }) => k.id === id)).toMatchObject({ status: "expired" });
  });

  it("refuse bad requests with a clear message", async () => {
    const adminScope = await callJson(ana, "POST", "/keys", { name: "x", projects: ["*"], scopes: ["keys.admin"] });
    expect(adminScope.status).toBe(400);
    expect(adminScope.body.error.code).toBe("invalid_request");
    expect(adminScope.body.error.message).toContain("scopes");
    const past = await callJson(ana, "POST", "/keys", {
      name: "x",
      projects: ["*"],
      scopes: ["contracts.read"],
      expiresAt: "2020-01-01T00:00:00Z",
    });
    expect(past.status).toBe(400);
    expect(past.body.error.message).toContain("past");
    const badProject = await callJson(ana, "POST", "/keys", {
      name: "x",
      projects: ["../etc"],
      scopes: ["contracts.read"],
    });
    expect(badProject.status).toBe(400);
    const notJson = await callJson(ana, "POST", "/keys", "name=x", {
      "Content-Type": "application/x-www-form-urlencoded",
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe("invalid_json");
    const unknown = await callJson(ana, "DELETE", "/keys/0123456789abcdef");
    expect(unknown.status).toBe(404);
  });

  it("need keys.admin", async () => {
    const developer = await restToken("dev", "contracts.read contracts.write");
    const response = await call(developer, "POST", "/keys", { name: "x", projects: ["*"], scopes: ["contracts.read"] });
    expect(response.status).toBe(403);
    // The step-up challenge stays exactly as the OAuth library writes it (RFC 6750 clients read the header)...
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(
      /^Bearer realm="OAuth", error="insufficient_scope", scope="contracts\.read contracts\.write keys\.admin", resource_metadata="[^"]+", error_description="This route needs the scope keys\.admin"$/,
    );
    // ...while the body has the one REST error shape, naming the scope and what to do.
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const body = (await response.json()) as {
      error: { code: string; message: string; correlationId: string; details: unknown };
    };
    expect(body.error.code).toBe("insufficient_scope");
    expect(body.error.message).toContain("needs the scope keys.admin");
    expect(body.error.message).toContain("Ask for an access token with the scope keys.admin");
    expect(body.error.details).toEqual({ missingScopes: ["keys.admin"] });
    expect(body.error.correlationId).toBe(response.headers.get("x-correlation-id"));

    const ciKey = (
      await createKey(ana, { projects: ["*"], scopes: ["contracts.read", "contracts.write", "snapshots.write"] })
    ).secret;
    const byKey = await callJson(ciKey, "GET", "/keys");
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe("insufficient_scope");
    expect(byKey.body.error.message).toContain("CI keys cannot carry the scope keys.admin");
  });

  it("carry no scope the organization's cap takes from the creator's role", async () => {
    const adminCap = [
      "orders.read",
      "orders.search",
      "orders.pii",
      "contracts.read",
      "contracts.write",
      "keys.admin",
      "audit.read",
      "clients.admin",
      "org.admin",
      "offline_access",
    ];
    expect((await operator("PATCH", "/organizations/globex", { roleCaps: { admin: adminCap } })).status).toBe(200);
    try {
      const refused = await callJson(gus, "POST", "/keys", { name: "x", projects: ["*"], scopes: ["snapshots.write"] });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("scope_not_grantable");
      expect(refused.body.error.message).toContain("cannot grant snapshots.write in this organization");
      const allowed = await callJson(gus, "POST", "/keys", { name: "y", projects: ["*"], scopes: ["contracts.read"] });
      expect(allowed.status).toBe(201);
    } finally {
      expect((await operator("PATCH", "/organizations/globex", { roleCaps: null })).status).toBe(200);
    }
  });

  it("of one organization are invisible to and irrevocable by another", async () => {
    const { id, secret } = await createKey(ana, { projects: ["*"], scopes: ["contracts.read"] });
    const globexList = await call(gus, "GET", "/keys");
    expect(await globexList.text()).not.toContain(id);
    expect((await callJson(gus, "DELETE", `/keys/${id}`)).status).toBe(404);
    expect((await call(secret, "GET", "/whoami")).status).toBe(200);
    const globexKey = await createKey(gus, { projects: ["*"], scopes: ["contracts.read"] });
    const whoami = await callJson(globexKey.secret, "GET", "/whoami");
    expect(whoami.body.organization.id).toBe("globex");
    expect(await (await call(ana, "GET", "/keys")).text()).not.toContain(globexKey.id);
  });

  it("are unauthenticated without a bearer token", async () => {
    const response = await SELF.fetch("http://localhost:8787/api/v1/keys");
    expect(response.status).toBe(401);
    // The OAuth layer's RFC 6750 challenge, and a problem+json body saying what to send.
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="OAuth"/);
    expect(((await response.json()) as { code: string }).code).toBe("missing_token");
    const badKey = await call(
      "arb_ci_acme_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      "GET",
      "/keys",
    );
    expect(badKey.status).toBe(401);
    expect(badKey.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(((await badKey.json()) as { detail: string }).detail).toContain("The CI key is unknown, revoked or expired");
  });
});

describe("the CI key list", () => {
  it("pages newest first with ?limit= and ?after=nextAfter, naming each key once", async () => {
    for (let i = 0; i < 5; i++)
      await createKey(ana, { name: `paged ${i}`, projects: ["*"], scopes: ["contracts.read"] });
    const whole = await callJson(ana, "GET", "/keys");
    expect(whole.body.nextAfter).toBeNull();
    const all: Array<{ id: string; name: string }> = whole.body.keys;
    expect(all.length).toBeGreaterThanOrEqual(5);
    // Newest first: the five just made lead, the last made first.
    expect(all.slice(0, 5).map((key) => key.name)).toEqual(["paged 4", "paged 3", "paged 2", "paged 1", "paged 0"]);
    const paged: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 100; page++) {
      const answer: { status: number; body: { keys: Array<{ id: string }>; nextAfter: string | null } } =
        await callJson(ana, "GET", `/keys?limit=2${after ? `&after=${after}` : ""}`);
      expect(answer.status).toBe(200);
      expect(answer.body.keys.length).toBeLessThanOrEqual(2);
      paged.push(...answer.body.keys.map((key: { id: string }) => key.id));
      after = answer.body.nextAfter;
      if (after === null) break;
      expect(after).toBe(answer.body.keys[1]?.id);
    }
    expect(after).toBeNull();
    expect(paged).toEqual(all.map((key) => key.id));
  });

  it("refuses a cursor that is not a key id, or names no key of the caller's organization, saying what to pass", async () => {
    const malformed = await callJson(ana, "GET", "/keys?limit=2&after=orders");
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe("invalid_query");
    expect(malformed.body.detail).toContain("after must be a CI key id, 16 hexadecimal characters");
    const globexKey = await createKey(gus, { projects: ["*"], scopes: ["contracts.read"] });
    for (const after of [globexKey.id, "0123456789abcdef"]) {
      const unknown = await callJson(ana, "GET", `/keys?limit=2&after=${after}`);
      expect(unknown.status, after).toBe(400);
      expect(unknown.body.code).toBe("invalid_query");
      expect(unknown.body.detail).toContain(`there is no key ${after}`);
      expect(unknown.body.detail).toContain("Leave after out to start from the newest key");
    }
  });
});

describe("an organization's active CI keys", () => {
  it(`are at most ${MAX_ACTIVE_KEYS}: the next is refused with 409 naming what to revoke; revoked and expired ones do not count`, async () => {
    const listed: Array<{ status: string }> = (await callJson(gus, "GET", "/keys")).body.keys;
    const active = listed.filter((key) => key.status === "active").length;
    // Written straight into the store: the active ones that fill the organization's places, and one revoked and
    // one expired key that take none.
    await runInDurableObject(storeOf("globex"), async (_instance, state) => {
      const insert = (id: string, expiresAt: string | null, revokedAt: string | null) =>
        state.storage.sql.exec(
          "INSERT INTO ci_keys (id, name, secret_hash, projects, scopes, created_by, created_at, expires_at, revoked_at) VALUES (?, 'filler', ?, '[\"*\"]', '[\"contracts.read\"]', 'gus', ?, ?, ?)",
          id,
          "0".repeat(64),
          new Date().toISOString(),
          expiresAt,
          revokedAt,
        );
      for (let i = 0; i < MAX_ACTIVE_KEYS - active; i++) insert(`f${String(i).padStart(15, "0")}`, null, null);
      insert("e000000000000000", "2020-01-01T00:00:00.000Z", null);
      insert("d000000000000000", null, "2020-01-01T00:00:00.000Z");
    });
    const refused = await callJson(gus, "POST", "/keys", {
      name: "one too many",
      projects: ["*"],
      scopes: ["contracts.read"],
    });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("too_many_keys");
    expect(refused.body.detail).toContain(`Your organization has ${MAX_ACTIVE_KEYS} active CI keys`);
    expect(refused.body.detail).toContain("DELETE /api/v1/keys/{id}");
    const names = async () =>
      (await callJson(gus, "GET", "/keys")).body.keys.map((key: { name: string }) => key.name) as string[];
    expect(await names()).not.toContain("one too many");
    // One revoked frees one place.
    expect((await callJson(gus, "DELETE", "/keys/f000000000000000")).status).toBe(200);
    expect(
      (await callJson(gus, "POST", "/keys", { name: "one too many", projects: ["*"], scopes: ["contracts.read"] }))
        .status,
    ).toBe(201);
    expect(await names()).toContain("one too many");
  });
});

describe("the records of keys that ended", () => {
  const DAY = 86_400_000;
  const newKey = (id: string, expiresAt: string | null = null) => ({
    id,
    name: id,
    secretHash: "0".repeat(64),
    projects: ["*"],
    scopes: ["contracts.read"],
    createdBy: "test",
    expiresAt,
  });

  it("are deleted by the organization store's retention run 90 days after the key ended, and never an active key's", async () => {
    const store = organizationStore("endedco");
    const now = Date.now();
    await store.createKey(newKey("kept-active"));
    await store.createKey(newKey("kept-later", new Date(now + 365 * DAY).toISOString()));
    await store.createKey(newKey("ended-revoked"));
    await store.revokeKey("ended-revoked", "test");
    await store.createKey(newKey("ended-expired", new Date(now - DAY).toISOString()));
    // Keys alone set the store's retention alarm: nothing else would ever run it in a store without projects.
    expect(await runInDurableObject(store, (_instance, state) => state.storage.getAlarm())).not.toBeNull();
    const ids = async () => ((await store.listKeys()) ?? []).map((key) => key.id).sort();

    await store.runRetention(undefined, now + 88 * DAY);
    expect(await ids()).toEqual(["ended-expired", "ended-revoked", "kept-active", "kept-later"]);
    await store.runRetention(undefined, now + 91 * DAY);
    expect(await ids()).toEqual(["kept-active", "kept-later"]);
  });

  it("go a thousand per run, and the run says more are due", async () => {
    const store = organizationStore("manyendedco");
    const longAgo = new Date(Date.now() - 400 * DAY).toISOString();
    await store.createKey(newKey("active"));
    await runInDurableObject(store, (_instance, state) => {
      for (let i = 0; i < 1_001; i++)
        state.storage.sql.exec(
          `INSERT INTO ci_keys (id, name, secret_hash, projects, scopes, created_by, created_at, expires_at, revoked_at,
             revoked_by) VALUES (?, ?, ?, '["*"]', '["contracts.read"]', 'test', ?, NULL, ?, 'test')`,
          `old-${i}`,
          `old-${i}`,
          "0".repeat(64),
          longAgo,
          longAgo,
        );
    });
    expect((await store.runRetention(undefined, Date.now())).more).toBe(true);
    expect(((await store.listKeys()) ?? []).length).toBe(2);
    expect((await store.runRetention(undefined, Date.now())).more).toBe(false);
    expect(((await store.listKeys()) ?? []).map((key) => key.id)).toEqual(["active"]);
  });
});
