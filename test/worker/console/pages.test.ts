// What the console pages show: projects with their active contract and latest verdict, the audit trail with
// filters and pages, current rate-limit usage per client; and their empty states.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { auditTrailIn } from "../../../src/audit/trail";
import { callJson, createKey } from "../contracts-api/api-helpers";
import { restPrincipal } from "../harness";
import { ordersContract, text } from "../contracts-api/fixtures";
import { signedIn, visibleText } from "./console-helpers";
import { appendOne } from "../helpers";
import { KEY_FORM_PROJECTS, KEYS_PER_PAGE } from "../../../src/web/console/keys.page";
import { USAGE_CLIENTS_PER_PAGE } from "../../../src/web/console/usage.page";
import { contractStore } from "../../../src/contracts/store/client";
import type { Env as WorkerEnv } from "../../../src/env";
import { operator } from "../directory/helpers";
import { counterKey, REST_RATE_LIMIT_TARGET } from "../../../src/ratelimit/keys";

describe("empty states", () => {
  it("explains what will appear when an organization has nothing yet", async () => {
    const gus = await signedIn("gus");
    expect(visibleText((await gus.get("/admin/projects")).text)).toContain("No projects yet");
    expect(visibleText((await gus.get("/admin/keys")).text)).toContain("No CI keys yet");
    expect(visibleText((await gus.get("/admin/clients")).text)).toContain("No connected clients");
    expect(visibleText((await gus.get("/admin/usage")).text)).toContain("No open windows");
  });
});

describe("CI keys", () => {
  it("offers only the scopes the administrator's role may grant in the organization, its cap included", async () => {
    const gus = await signedIn("gus");
    expect((await gus.get("/admin/keys")).text).toContain('name="scope" value="snapshots.write"');
    const cap = ["contracts.read", "contracts.write", "keys.admin", "org.admin", "offline_access"];
    expect((await operator("PATCH", "/organizations/globex", { roleCaps: { admin: cap } })).status).toBe(200);
    try {
      const page = (await gus.get("/admin/keys")).text;
      expect(page).toContain('name="scope" value="contracts.write"');
      expect(page).not.toContain('name="scope" value="snapshots.write"');
    } finally {
      expect((await operator("PATCH", "/organizations/globex", { roleCaps: null })).status).toBe(200);
    }
  });

  it(`offers the first ${KEY_FORM_PROJECTS} projects by name as boxes, and says the others are typed`, async () => {
    await runInDurableObject(
      env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName("globex")),
      async (_instance, state) => {
        for (let i = 0; i < KEY_FORM_PROJECTS + 5; i++)
          state.storage.sql.exec(
            "INSERT OR IGNORE INTO projects (name, created_at, created_by, active_contract_id) VALUES (?, ?, 'gus', NULL)",
            `p-${String(i).padStart(3, "0")}`,
            new Date().toISOString(),
          );
      },
    );
    const page = (await (await signedIn("gus")).get("/admin/keys")).text;
    const boxes = [...page.matchAll(/name="project" value="(p-\d+)"/g)].map((m) => m[1]);
    expect(boxes).toHaveLength(KEY_FORM_PROJECTS);
    expect(boxes[0]).toBe("p-000");
    expect(visibleText(page)).toContain(`or are not listed above (the first ${KEY_FORM_PROJECTS} by name are)`);
  });
});

describe("CI key pages", () => {
  it(`lists ${KEYS_PER_PAGE} keys a page, newest first, with a link to older ones; the overview counts them`, async () => {
    const gus = await signedIn("gus");
    await makeKeys("globex", KEYS_PER_PAGE + 3, "paged");
    const revoked = await createKey(restPrincipal("gus", "keys.admin"), {
      projects: ["*"],
      scopes: ["contracts.read"],
    });
    expect((await callJson(restPrincipal("gus", "keys.admin"), "DELETE", `/keys/${revoked.id}`)).status).toBe(200);
    const first = (await gus.get("/admin/keys")).text;
    const names = (text: string) => [...visibleText(text).matchAll(/paged (\d+)/g)].map((m) => Number(m[1]));
    // The revoked key is the newest, so the first page holds it and the 99 newest of the others.
    expect(names(first)).toEqual(Array.from({ length: KEYS_PER_PAGE - 1 }, (_, i) => KEYS_PER_PAGE + 2 - i));
    const older = /href="(\/admin\/keys\?after=[0-9a-f]{16})#keys-heading">Older keys/.exec(first);
    expect(older).not.toBeNull();
    const second = (await gus.get(older![1]!)).text;
    expect(names(second)).toEqual([3, 2, 1, 0]);
    expect(second).toContain('<a href="/admin/keys">Newest keys</a>');
    expect(second).not.toContain("Older keys");
    const overview = visibleText((await gus.get("/admin")).text);
    expect(overview).toMatch(new RegExp(`${KEYS_PER_PAGE + 3}\\s*active CI keys`));
    expect(overview).toContain("1 revoked or expired");
    // A cursor naming no key of the organization is refused on a page that says how to start over.
    const unknown = await gus.get("/admin/keys?after=0123456789abcdef");
    expect(unknown.status).toBe(400);
    expect(visibleText(unknown.text)).toContain("Leave after out to start from the newest key");
  });
});

describe("projects", () => {
  it("lists each project with its active contract and latest verdict", async () => {
    const token = restPrincipal("ana", "contracts.write snapshots.write contracts.read");
    expect(
      (await callJson(token, "POST", "/projects/billing/contracts?label=001-billing", text(ordersContract()))).status,
    ).toBe(201);
    const rejected = structuredClone(ordersContract()) as { paths: Record<string, unknown> };
    delete rejected.paths["/orders/{id}"];
    const snapshot = await callJson(
      token,
      "POST",
      "/projects/billing/snapshots?commit=deadbeefcafe0001&branch=main",
      text(rejected),
    );
    expect(snapshot.status).toBe(201);
    expect(snapshot.body.verdict.approved).toBe(false);
    expect((await callJson(token, "POST", "/projects/shipping/contracts", text(ordersContract()))).status).toBe(201);

    const page = await (await signedIn("ana")).get("/admin/projects");
    const billing = page.text.split("<tr>").find((row) => row.includes(">billing<"))!;
    expect(visibleText(billing)).toContain("v1 001-billing");
    expect(billing).toContain("deadbeefcafe");
    expect(billing).toContain('badge bad">rejected');
    expect(visibleText(billing)).toMatch(/snapshot 1 against contract v1/);
    const shipping = page.text.split("<tr>").find((row) => row.includes(">shipping<"))!;
    // The contract's own verdict is named for what it judged: the constitution, not an approval of an implementation.
    expect(shipping).toContain('badge ok">constitution ok');
    expect(visibleText(shipping)).toContain("contract v1 against the constitution");
  });

  it("counts the projects on the overview without listing them, those without an active contract included", async () => {
    const token = restPrincipal("ana", "contracts.write snapshots.write contracts.read");
    const listed = (await callJson(token, "GET", "/projects")).body.projects as Array<{
      activeContractVersion: unknown;
    }>;
    // A project from before the split without an active contract (its contract refused or never uploaded).
    await runInDurableObject(
      env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName("acme")),
      async (_instance, state) => {
        state.storage.sql.exec(
          "INSERT INTO projects (name, created_at, created_by, active_contract_id) VALUES ('zz-empty', ?, 'ana', NULL)",
          new Date().toISOString(),
        );
      },
    );
    const total = listed.length + 1;
    const without = listed.filter((p) => p.activeContractVersion === null).length + 1;
    const overview = visibleText((await (await signedIn("ana")).get("/admin")).text);
    expect(overview).toMatch(new RegExp(`\\b${total}\\s+projects\\b`));
    expect(overview).toContain(`${without} without contract`);
    expect((await callJson(token, "GET", "/projects")).body.projects).toHaveLength(total);
  });
});

describe("audit trail", () => {
  it("filters by outcome, user, client, target and time, and pages through results", async () => {
    const store = auditTrailIn(env.AUDIT_LOG)("acme");
    const base = Date.parse("2026-03-01T10:00:00Z");
    for (let i = 0; i < 30; i++) {
      await appendOne(store, {
        correlationId: `paging-${i}`,
        time: new Date(base + i * 60_000).toISOString(),
        organizationId: "acme",
        userId: i % 2 ? "dev" : "mia",
        clientId: "paging-client",
        kind: "tool",
        target: i % 3 ? "orders_search" : "whoami",
        argumentsDigest: "",
        durationMs: 1,
        outcome: i === 7 ? "rate-limited" : "ok",
        reason: i === 7 ? "limit 30/60s" : "",
      });
    }
    const ana = await signedIn("ana");
    const first = await ana.get("/admin/audit?client=paging-client");
    expect(first.status).toBe(200);
    const rows = (page: string) => [...page.matchAll(/paging-(\d+)</g)].map((m) => Number(m[1]));
    expect(rows(first.text)).toEqual(Array.from({ length: 25 }, (_, i) => 29 - i));
    const older = /<a href="([^"]+)">Older events<\/a>/
      .exec(first.text)![1]!
      .replace(/&#(\d+);/g, (_m, c) => String.fromCharCode(Number(c)));
    expect(older).toContain("client=paging-client");
    const second = await ana.get(older);
    expect(rows(second.text)).toEqual([4, 3, 2, 1, 0]);
    expect(second.text).not.toContain("Older events");
    expect(second.text).toContain("Newest events");

    const limited = await ana.get("/admin/audit?client=paging-client&outcome=rate-limited");
    expect(rows(limited.text)).toEqual([7]);
    expect(limited.text).toContain('badge warn">rate-limited');
    expect(limited.text).toContain('<option value="rate-limited" selected>');

    const byUserAndTool = await ana.get("/admin/audit?client=paging-client&user=mia&target=whoami");
    expect(rows(byUserAndTool.text)).toEqual([24, 18, 12, 6, 0]);

    // datetime-local values are UTC; `to` is exclusive.
    const window = await ana.get("/admin/audit?client=paging-client&from=2026-03-01T10:10&to=2026-03-01T10:13");
    expect(rows(window.text)).toEqual([12, 11, 10]);
    expect(window.text).toContain('value="2026-03-01T10:10"');

    const none = await ana.get("/admin/audit?client=paging-client&target=nothing-like-this");
    expect(visibleText(none.text)).toContain("No events match these filters");
  });

  it("explains filters it cannot use instead of failing", async () => {
    const ana = await signedIn("ana");
    const reversed = await ana.get("/admin/audit?from=2026-03-02T00:00&to=2026-03-01T00:00");
    expect(reversed.status).toBe(400);
    expect(visibleText(reversed.text)).toContain("`from` must be earlier than `to`");
    const badTime = await ana.get("/admin/audit?from=yesterday");
    expect(badTime.status).toBe(400);
    expect(visibleText(badTime.text)).toContain("from");
    const badCursor = await ana.get("/admin/audit?cursor=not-a-cursor");
    expect(badCursor.status).toBe(400);
    expect(visibleText(badCursor.text)).toContain("not a cursor this server issued");
    const badOutcome = await ana.get("/admin/audit?outcome=exploded");
    expect(badOutcome.status).toBe(400);
  });
});

describe("rate-limit usage", () => {
  it("shows the calls each client made in its current window", async () => {
    const token = restPrincipal("ana", "contracts.read");
    for (let i = 0; i < 3; i++) expect((await callJson(token, "GET", "/projects")).status).toBe(200);
    const page = await (await signedIn("ana")).get("/admin/usage");
    const rows = page.text.split("<tr>").filter((row) => row.includes(">REST API<"));
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.some((row) => visibleText(row).includes("3 of 120"))).toBe(true);
    expect(page.text).toContain('badge ok">within quota');
  });

  it(`asks the coordinators of ${USAGE_CLIENTS_PER_PAGE} clients a page, by client id, with a link to the next`, async () => {
    // More clients with a counter than a page holds (counters as the limiter writes them), and one with an open
    // window after them.
    const bindings = env as unknown as WorkerEnv;
    for (let i = 0; i < USAGE_CLIENTS_PER_PAGE + 10; i++)
      await bindings.RATE_LIMIT_KV.put(
        await counterKey("acme", `c-usage-${String(i).padStart(3, "0")}`, REST_RATE_LIMIT_TARGET),
        "1",
      );
    const late = restPrincipal("ana", "contracts.read", { clientId: "zz-usage-client" });
    expect((await callJson(late, "GET", "/projects")).status).toBe(200);
    const ana = await signedIn("ana");
    const first = await ana.get("/admin/usage");
    expect(first.text).not.toContain("zz-usage-client");
    const next = /href="(\/admin\/usage\?after=[^"]+)">Next clients/.exec(first.text);
    expect(next).not.toBeNull();
    const second = await ana.get(next![1]!.replaceAll("&amp;", "&"));
    expect(second.text).toContain("zz-usage-client");
    expect(second.text).toContain('<a href="/admin/usage">First clients</a>');
  });

  it("names a CI key's client by its key, and gives no place to keys that have no counter", async () => {
    // More keys than a page holds, none of them used: none is a client the page lists.
    await makeKeys("globex", USAGE_CLIENTS_PER_PAGE + 10, "unused");
    const used = await createKey(restPrincipal("gus", "keys.admin"), {
      name: "used <key>",
      projects: ["*"],
      scopes: ["contracts.read"],
    });
    expect((await callJson(used.secret, "GET", "/projects")).status).toBe(200);
    const page = (await (await signedIn("gus")).get("/admin/usage")).text;
    expect(page).toContain("CI key &#34;used &#60;key&#62;&#34;");
    expect(page).toContain(`ci-key:${used.id}`);
    expect(page).not.toContain("unused 0");
    expect(page).not.toContain("Next clients");
  });
});

/** Writes `count` keys of the organization straight into its store, named `<prefix> <i>`, one millisecond apart. */
async function makeKeys(organizationId: string, count: number, prefix: string): Promise<void> {
  const store = contractStore(env as unknown as WorkerEnv, organizationId);
  for (let i = 0; i < count; i++) {
    await store.createKey({
      id: `${prefix.charCodeAt(0).toString(16).padStart(2, "0")}${String(i).padStart(14, "0")}`,
      name: `${prefix} ${i}`,
      projects: ["*"],
      scopes: ["contracts.read"],
      secretHash: "0".repeat(64),
      createdBy: "gus",
      expiresAt: null,
    });
    await new Promise((done) => setTimeout(done, 1));
  }
}
