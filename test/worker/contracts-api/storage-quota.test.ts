// Storage usage and its quota (docs/storage.md "When storage fills"): GET /api/v1/storage shows what the organization
// stores against its quota, per project (a CI key sees its projects only); an upload the quota cannot take is
// refused with 507 storage_quota_exceeded, a message naming what the project holds and what to shorten or raise, and
// nothing stored; the quota is the operator's to set (an administrator's PATCH is refused), and raising it lets
// the same upload through.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { forgetOwnHome } from "../../../src/contracts/store/project-homes";
import type { StorageUsed } from "../../../src/contracts/store/records";
import type { ContractStoreRpc } from "../../../src/contracts/store/rpc";
import { RETENTION_NOW_PROJECTS } from "../../../src/contracts/store/rpc";
import { organizationStore, projectStore } from "./stores";
import { beforeAll, describe, expect, it } from "vitest";
import { operator } from "../directory/helpers";
import { restPrincipal, type Caller } from "../harness";
import { call, callJson, createKey } from "./api-helpers";
import { conformingHar } from "../engine/exchanges/fixtures";
import { conformingSnapshot, ordersContract, text } from "./fixtures";

let ana: Caller;

interface Usage {
  usedBytes: number;
  quotaBytes: number;
  databaseBytes: number;
  bucketBytes: number;
  projects: Array<{ name: string; snapshots: number; documentBytes: number; retention: unknown }>;
  nextAfter: string | null;
}

async function usage(caller: Caller = ana): Promise<Usage> {
  const answer = await callJson(caller, "GET", "/storage");
  expect(answer.status).toBe(200);
  return answer.body.storage;
}

async function snapshotCount(): Promise<number> {
  return (await callJson(ana, "GET", "/projects/orders/snapshots")).body.snapshots.length;
}

/** A snapshot of about `bytes` bytes (over 64 KiB goes to the bucket). */
function snapshotOf(bytes: number): string {
  return text({ ...conformingSnapshot(), "x-padding": "p".repeat(bytes) });
}

/** An organization of this file's own: other files change acme's quota and retention. */
const ORG = "quota-co";

beforeAll(async () => {
  const created = await operator("POST", "/organizations", {
    id: ORG,
    name: "Quota Co",
    emailDomains: ["quota.example"],
  });
  expect(created.status).toBe(201);
  ana = restPrincipal("ana", "contracts.read contracts.write snapshots.write keys.admin org.admin", {
    organizationId: ORG,
  });
  expect((await callJson(ana, "POST", "/projects/orders/contracts", text(ordersContract()))).status).toBe(201);
  expect((await callJson(ana, "POST", "/projects/billing/contracts", text(ordersContract()))).status).toBe(201);
  expect((await callJson(ana, "POST", "/projects/orders/snapshots?commit=a1", snapshotOf(200_000))).status).toBe(201);
});

describe("storage usage", () => {
  it("shows the database, the bucket, the default quota and each project with its retention", async () => {
    const storage = await usage();
    expect(storage.bucketBytes).toBeGreaterThan(200_000);
    expect(storage.databaseBytes).toBeGreaterThan(0);
    expect(storage.usedBytes).toBe(storage.databaseBytes + storage.bucketBytes);
    expect(storage.quotaBytes).toBe(10 * 1024 ** 3);
    const orders = storage.projects.find((project) => project.name === "orders");
    expect(orders).toMatchObject({ snapshots: 1, retention: { snapshotDays: 90, keepPerBranch: 10 } });
    expect(orders!.documentBytes).toBeGreaterThan(200_000);
    expect(storage.projects.map((project) => project.name).sort()).toEqual(["billing", "orders"]);
  });

  it("pages its projects by name with ?limit= and ?after=nextAfter, reading only those", async () => {
    const first = await callJson(ana, "GET", "/storage?limit=1");
    expect(first.body.storage.projects.map((project: { name: string }) => project.name)).toEqual(["billing"]);
    expect(first.body.storage.nextAfter).toBe("billing");
    const second = await callJson(ana, "GET", "/storage?limit=1&after=billing");
    expect(second.body.storage.projects.map((project: { name: string }) => project.name)).toEqual(["orders"]);
    expect(second.body.storage.nextAfter).toBeNull();
    // The organization's totals are the same on every page.
    expect(second.body.storage.usedBytes).toBe(first.body.storage.usedBytes);
    expect((await usage()).projects).toHaveLength(2);
    expect((await callJson(ana, "GET", "/storage?after=Not%20A%20Name")).status).toBe(400);
  });

  it("shows a CI key only the projects it may use", async () => {
    const { secret } = await createKey(ana, { projects: ["billing"], scopes: ["contracts.read"] });
    const storage = await usage(secret);
    expect(storage.projects.map((project) => project.name)).toEqual(["billing"]);
  });
});

describe("the storage quota", () => {
  it("is the operator's: an administrator cannot change it", async () => {
    const patched = await callJson(ana, "PATCH", "/organization", { storageQuotaBytes: 1024 ** 4 });
    expect(patched.status).toBe(403);
    expect(patched.body.code).toBe("operator_only_setting");
    expect(patched.body.detail).toContain("storageQuotaBytes");
    expect((await usage()).quotaBytes).toBe(10 * 1024 ** 3);
  });

  it("refuses an upload it cannot take with 507, says what to delete or raise, and stores nothing", async () => {
    const before = await usage();
    const quota = before.usedBytes + 100_000;
    expect((await operator("PATCH", `/organizations/${ORG}`, { storageQuotaBytes: quota })).status).toBe(200);
    expect((await usage()).quotaBytes).toBe(quota);
    const count = await snapshotCount();

    const refused = await callJson(ana, "POST", "/projects/orders/snapshots?commit=b2", snapshotOf(300_000));
    expect(refused.status).toBe(507);
    expect(refused.body.code).toBe("storage_quota_exceeded");
    expect(refused.body.detail).toContain('Project "orders" holds');
    expect(refused.body.detail).toContain("1 snapshot");
    expect(refused.body.detail).toContain("retention.snapshotDays");
    expect(refused.body.detail).toContain("storageQuotaBytes");
    expect(refused.body.detail).toContain("nothing was stored");
    // Another project's name is not in the answer (a CI key may be limited to this one).
    expect(refused.body.detail).not.toContain("billing");
    expect(await snapshotCount()).toBe(count);
    expect((await usage()).bucketBytes).toBe(before.bucketBytes);

    // Refused before its body is read: a body that never ends still gets its answer.
    const endless = new ReadableStream({ pull: () => new Promise(() => {}) });
    const early = await call(ana, "POST", "/projects/orders/snapshots?commit=b4", endless, {
      "Content-Type": "application/json",
      "Content-Length": "300000",
    });
    expect(early.status).toBe(507);
    expect(((await early.json()) as { code: string }).code).toBe("storage_quota_exceeded");

    // A small upload still fits.
    expect((await callJson(ana, "POST", "/projects/orders/snapshots?commit=b3", snapshotOf(100))).status).toBe(201);

    const contract = await callJson(ana, "POST", "/projects/orders/contracts", snapshotOf(300_000));
    expect(contract.status).toBe(507);
    expect(contract.body.code).toBe("storage_quota_exceeded");
  });

  it("refuses builds and traffic runs once storage is full", async () => {
    const full = (await usage()).usedBytes - 1;
    expect((await operator("PATCH", `/organizations/${ORG}`, { storageQuotaBytes: full })).status).toBe(200);
    const build = await callJson(ana, "POST", "/projects/orders/builds", { commit: "c3", log: "failed" });
    expect(build.status).toBe(507);
    expect(build.body.code).toBe("storage_quota_exceeded");
    const exchanges = await callJson(ana, "POST", "/projects/orders/exchanges", JSON.stringify(conformingHar()), {
      "Content-Type": "application/json",
    });
    expect(exchanges.status).toBe(507);
    expect(exchanges.body.code).toBe("storage_quota_exceeded");
  });

  it("lets the same upload through once the operator raises it", async () => {
    expect((await operator("PATCH", `/organizations/${ORG}`, { storageQuotaBytes: 1024 ** 3 })).status).toBe(200);
    const count = await snapshotCount();
    expect((await callJson(ana, "POST", "/projects/orders/snapshots?commit=b2", snapshotOf(300_000))).status).toBe(201);
    expect(await snapshotCount()).toBe(count + 1);
  });

  it("is validated when set", async () => {
    const wrong = await operator("PATCH", `/organizations/${ORG}`, { storageQuotaBytes: -5 });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).toContain("storageQuotaBytes");
  });
});

describe("running retention now", () => {
  it("is an administrator's: after shortening retention, expired snapshots and their bytes go at once", async () => {
    const member = restPrincipal("mia", "contracts.read", { organizationId: ORG });
    expect(
      (
        await callJson(member, "POST", "/storage/retention-runs", undefined, undefined, {
          unchecked: "403 from the router",
        })
      ).status,
    ).toBe(403);

    const before = await usage();
    const orders = before.projects.find((project) => project.name === "orders")!;
    expect(orders.snapshots).toBeGreaterThanOrEqual(3);
    await runInDurableObject(projectStore(ORG, "orders"), (_i, state) => {
      state.storage.sql.exec(
        "UPDATE snapshots SET uploaded_at = ?",
        new Date(Date.now() - 10 * 86_400_000).toISOString(),
      );
    });
    const shortened = await callJson(ana, "PATCH", "/organization", {
      retention: { snapshotDays: 1, keepPerBranch: 0 },
    });
    expect(shortened.status).toBe(200);

    const ran = await callJson(ana, "POST", "/storage/retention-runs");
    expect(ran.status).toBe(200);
    // Every snapshot but the project's newest expired.
    expect(ran.body.run.deleted.snapshots).toBe(orders.snapshots - 1);
    expect(ran.body.run.more).toBe(false);
    expect(ran.body.run.contentBytes).toBeGreaterThan(200_000);
    const after = ran.body.storage as Usage;
    expect(after.projects.find((project) => project.name === "orders")!.snapshots).toBe(1);
    expect(after.bucketBytes).toBeLessThan(before.bucketBytes);
  });

  it("runs 100 projects' stores in the call and the others from the alarm, counting them as pending", async () => {
    // Projects in stores of their own listed before "orders" (their stores empty), so its store is past the first 100.
    const names = Array.from({ length: RETENTION_NOW_PROJECTS + 5 }, (_, i) => `aa-${String(i).padStart(3, "0")}`);
    await runInDurableObject(organizationStore(ORG), async (_instance, state) => {
      for (const name of names)
        state.storage.sql.exec(
          `INSERT INTO project_homes (name, summary, updated_at)
           SELECT ?, json_set(summary, '$.project.name', ?), updated_at FROM project_homes WHERE name = 'orders'`,
          name,
          name,
        );
    });
    try {
      for (const commit of ["r1", "r2"])
        expect(
          (await callJson(ana, "POST", `/projects/orders/snapshots?commit=${commit}`, snapshotOf(1000))).status,
        ).toBe(201);
      await runInDurableObject(projectStore(ORG, "orders"), (_i, state) => {
        state.storage.sql.exec(
          "UPDATE snapshots SET uploaded_at = ?",
          new Date(Date.now() - 10 * 86_400_000).toISOString(),
        );
      });
      const homes = await runInDurableObject(
        organizationStore(ORG),
        (_i, state) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM project_homes").one().n,
      );
      const ran = await callJson(ana, "POST", "/storage/retention-runs");
      expect(ran.status).toBe(200);
      expect(ran.body.projectsPending).toBe(homes - RETENTION_NOW_PROJECTS);
      // "orders" was not reached: its expired snapshots are still there, until the alarm's turn.
      expect(ran.body.run.deleted.snapshots).toBe(0);
      expect(await snapshotCount()).toBe(3);
      expect(await runDurableObjectAlarm(organizationStore(ORG))).toBe(true);
      expect(await snapshotCount()).toBe(1);
      const left = await runInDurableObject(organizationStore(ORG), (_i, state) =>
        state.storage.get("retention-now-after"),
      );
      expect(left).toBeUndefined();
    } finally {
      await runInDurableObject(organizationStore(ORG), async (_instance, state) => {
        state.storage.sql.exec("DELETE FROM project_homes WHERE name LIKE 'aa-%'");
      });
    }
  });

  it("answers a run with the totals and the first 100 projects, naming where the storage list goes on", async () => {
    // Many projects from before the split, written straight into the organization's store.
    const names = Array.from({ length: 101 }, (_, i) => `zz-${String(i).padStart(3, "0")}`);
    await runInDurableObject(organizationStore(ORG), async (_instance, state) => {
      for (const name of names)
        state.storage.sql.exec(
          "INSERT INTO projects (name, created_at, created_by, active_contract_id) VALUES (?, ?, 'ana', NULL)",
          name,
          new Date().toISOString(),
        );
    });
    try {
      const ran = await callJson(ana, "POST", "/storage/retention-runs");
      expect(ran.status).toBe(200);
      const storage = ran.body.storage as Usage;
      expect(storage.projects).toHaveLength(100);
      expect(storage.nextAfter).toBe(storage.projects.at(-1)!.name);
      const rest = await usage();
      expect(rest.projects.length).toBeGreaterThanOrEqual(103);
    } finally {
      await runInDurableObject(organizationStore(ORG), async (_instance, state) => {
        state.storage.sql.exec("DELETE FROM projects WHERE name LIKE 'zz-%'");
      });
    }
  });
});

describe("the organization's total, which every upload's quota check reads", () => {
  interface Totals {
    used: StorageUsed;
    projects: { total: number; withoutContract: number };
  }

  /**
   * What the organization's store answers (its bytes, and the project counts the console's overview shows), and the
   * same summed from every project's row: what its projects' stores last reported, beside its own bytes and rows.
   */
  async function totals(): Promise<{ answered: Totals; summed: Totals }> {
    const store = organizationStore(ORG) as unknown as DurableObjectStub<ContractStoreRpc>;
    const used = await store.storageUsed();
    const projects = await store.projectCounts();
    const own = await store.storeUsed();
    const reported = await runInDurableObject(organizationStore(ORG), (_instance, state) => {
      const sql = state.storage.sql;
      const homes = sql
        .exec<{ database: number; bucket: number; total: number; without: number }>(
          `SELECT COALESCE(SUM(json_extract(summary, '$.used.databaseBytes')), 0) AS database,
                  COALESCE(SUM(json_extract(summary, '$.used.bucketBytes')), 0) AS bucket, COUNT(*) AS total,
                  COALESCE(SUM(json_extract(summary, '$.project.activeContractVersion') IS NULL), 0) AS without
           FROM project_homes`,
        )
        .one();
      const legacy = sql
        .exec<{ total: number; without: number }>(
          `SELECT COUNT(*) AS total, COALESCE(SUM(active_contract_id IS NULL), 0) AS without FROM projects
           WHERE name NOT IN (SELECT name FROM project_homes)`,
        )
        .one();
      return { homes, legacy };
    });
    const { homes, legacy } = reported;
    return {
      answered: { used: { databaseBytes: used.databaseBytes, bucketBytes: used.bucketBytes }, projects },
      summed: {
        used: { databaseBytes: own.databaseBytes + homes.database, bucketBytes: own.bucketBytes + homes.bucket },
        projects: { total: homes.total + legacy.total, withoutContract: homes.without + legacy.without },
      },
    };
  }

  it("follows each project's reports as running totals, and counts them once in a store from before", async () => {
    const before = await totals();
    expect(before.answered).toEqual(before.summed);
    expect((await callJson(ana, "POST", "/projects/billing/snapshots?commit=t1", snapshotOf(150_000))).status).toBe(
      201,
    );
    const uploaded = await totals();
    expect(uploaded.answered).toEqual(uploaded.summed);
    expect(uploaded.answered.used.bucketBytes).toBeGreaterThan(before.answered.used.bucketBytes + 150_000);
    expect(uploaded.answered.projects).toEqual(before.answered.projects);

    // A project's store reporting a project without an active contract (as one whose store was just made would):
    // one project more, and one more without a contract.
    const store = organizationStore(ORG) as unknown as DurableObjectStub<ContractStoreRpc>;
    const [billingSummary] = await runInDurableObject(organizationStore(ORG), (_instance, state) =>
      state.storage.sql
        .exec<{ summary: string }>("SELECT summary FROM project_homes WHERE name = 'billing'")
        .toArray()
        .map((row) => JSON.parse(row.summary)),
    );
    billingSummary.project = { ...billingSummary.project, name: "tally", activeContractVersion: null };
    await store.noteProject(billingSummary);
    const after = await totals();
    expect(after.answered).toEqual(after.summed);
    expect(after.answered.projects).toEqual({
      total: before.answered.projects.total + 1,
      withoutContract: before.answered.projects.withoutContract + 1,
    });

    // A row written behind the store's back (as only a test does) does not move the total: it is the running total
    // each report moves, read in two rows, not a sum over every project's row at each upload.
    await runInDurableObject(organizationStore(ORG), (_instance, state) => {
      state.storage.sql.exec(
        `INSERT INTO project_homes (name, summary, updated_at)
         SELECT 'zz-unreported', json_set(summary, '$.project.name', 'zz-unreported'), updated_at
         FROM project_homes WHERE name = 'billing'`,
      );
    });
    expect((await totals()).answered).toEqual(after.answered);
    // Forgetting a project (its purge done) takes its last report off.
    await runInDurableObject(organizationStore(ORG), (_instance, state) =>
      forgetOwnHome(state.storage.sql, "zz-unreported"),
    );
    const billing = await runInDurableObject(organizationStore(ORG), (_instance, state) =>
      state.storage.sql
        .exec<{ bucket: number }>(
          "SELECT json_extract(summary, '$.used.bucketBytes') AS bucket FROM project_homes WHERE name = 'billing'",
        )
        .one(),
    );
    const forgotten = (await totals()).answered;
    expect(forgotten.used.bucketBytes).toBe(after.answered.used.bucketBytes - billing.bucket);
    expect(forgotten.projects.total).toBe(after.answered.projects.total - 1);

    // A store from before the running totals: none in its counters. Its next start counts them from the rows, once.
    await runInDurableObject(organizationStore(ORG), (_instance, state) => {
      state.storage.sql.exec("DELETE FROM counters WHERE name LIKE 'homes_%'");
    });
    await evictDurableObject(organizationStore(ORG));
    const upgraded = await totals();
    expect(upgraded.answered).toEqual(upgraded.summed);
    expect(upgraded.answered).toEqual(after.answered);
  });
});
