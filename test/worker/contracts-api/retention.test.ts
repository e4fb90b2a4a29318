// Retention (docs/storage.md "Retention"): expired snapshots, their verdicts, builds and the content nothing names
// any more are deleted by the store's alarm; the newest of each branch, the project's newest, every contract version
// and content a kept record shares are never deleted; numbers stay. The alarm reads the organization's policy from
// the directory (settings `retention`, per project too).
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env as WorkerEnv } from "../../../src/env";
import { operator } from "../directory/helpers";
import { restPrincipal, type Caller } from "../harness";
import { call, callJson } from "./api-helpers";
import { conformingSnapshot, ordersContract, text, violatingSnapshot } from "./fixtures";
import { organizationStore, projectContentKey, projectStore } from "./stores";

const bindings = env as unknown as WorkerEnv;
/** The store of project "orders" (its own since the split), which runs its retention on its own alarm. */
const store = () => projectStore("acme", "orders");
const DAY = 86_400_000;

let ana: Caller;
const ids: Record<string, number> = {};
let largeHash = "";

/** Makes a record look uploaded `days` ago. */
async function age(table: "snapshots" | "builds", id: number, days: number) {
  const column = table === "snapshots" ? "uploaded_at" : "recorded_at";
  await runInDurableObject(store(), (_instance, state) => {
    state.storage.sql.exec(
      `UPDATE ${table} SET ${column} = ? WHERE id = ?`,
      new Date(Date.now() - days * DAY).toISOString(),
      id,
    );
  });
}

async function snapshot(commit: string, branch: string, body: string | Uint8Array): Promise<number> {
  const answer = await callJson(ana, "POST", `/projects/orders/snapshots?commit=${commit}&branch=${branch}`, body);
  expect(answer.status).toBe(201);
  return answer.body.snapshot.id;
}

beforeAll(async () => {
  ana = restPrincipal("ana", "contracts.read contracts.write snapshots.write");
  expect((await callJson(ana, "POST", "/projects/orders/contracts", text(ordersContract()))).status).toBe(201);
  const padding = Array.from({ length: 8192 }, (_, i) => i.toString(36).padStart(16, "~")).join("");
  const large = new TextEncoder().encode(text({ ...conformingSnapshot(), "x-padding": padding }));
  // Old snapshots on main: a large one (bucket), a shared-bytes one and a unique one; then the newest of main.
  ids.large = await snapshot("old0001", "main", large);
  largeHash = (await callJson(ana, "GET", `/projects/orders/snapshots/${ids.large}`)).body.snapshot.contentHash;
  ids.shared = await snapshot("old0002", "main", text(violatingSnapshot()));
  ids.feature = await snapshot("old0003", "feature-x", text(conformingSnapshot()));
  ids.newestMain = await snapshot("new0001", "main", text(violatingSnapshot()));
  for (const id of [ids.large, ids.shared, ids.feature]) await age("snapshots", id!, 40);
  await age("snapshots", ids.newestMain!, 40);
  for (const commit of ["old0004", "old0005"]) {
    const build = await callJson(ana, "POST", "/projects/orders/builds", { commit, log: "failed" });
    expect(build.status).toBe(201);
    await age("builds", build.body.build.id, 40);
  }
  ids.fresh = await snapshot("new0002", "main", text(conformingSnapshot()));
});

describe("retention", () => {
  it("sets its alarm with the first history, and deletes nothing younger than the policy", async () => {
    expect(await runInDurableObject(store(), (_instance, state) => state.storage.getAlarm())).not.toBeNull();
    // The platform default keeps 90 days: nothing here is that old.
    expect(await runDurableObjectAlarm(store())).toBe(true);
    const listed = (await callJson(ana, "GET", "/projects/orders/snapshots")).body.snapshots;
    expect(listed.map((s: { number: number }) => s.number)).toEqual([5, 4, 3, 2, 1]);
  });

  it("deletes what expired under the organization's policy, keeps the newest per branch, and numbers stay", async () => {
    const set = await operator("PATCH", "/organizations/acme", { retention: { snapshotDays: 30, keepPerBranch: 1 } });
    expect(set.status).toBe(200);
    expect(await runDurableObjectAlarm(store())).toBe(true);
    const listed = (await callJson(ana, "GET", "/projects/orders/snapshots")).body.snapshots;
    // main: newest (fresh, 5) kept by keepPerBranch... and the project's newest; feature-x: its only one (3) kept.
    expect(listed.map((s: { number: number; commit: string }) => [s.number, s.commit])).toEqual([
      [5, "new0002"],
      [3, "old0003"],
    ]);
    for (const id of [ids.large, ids.shared, ids.newestMain])
      expect((await call(ana, "GET", `/projects/orders/snapshots/${id}`)).status).toBe(404);
    // Of two old failed builds (no branch), the newer stays: the newest of its branch and of the project.
    const builds = (await callJson(ana, "GET", "/projects/orders/builds")).body.builds;
    expect(builds.map((b: { commit: string }) => b.commit)).toEqual(["old0005"]);
    // Their verdicts went with them; the contract version and its verdict stay.
    const verdicts = (await callJson(ana, "GET", "/projects/orders/verdicts")).body.verdicts;
    expect(verdicts.map((v: { subject: string }) => v.subject).sort()).toEqual(["contract", "snapshot", "snapshot"]);
    expect((await call(ana, "GET", "/projects/orders/contracts/1/document")).status).toBe(200);
    // The large document left the bucket with its record; content a kept record names stayed.
    expect(await bindings.DOCUMENTS.head(projectContentKey("acme", "orders", largeHash))).toBeNull();
    const kept = await callJson(ana, "GET", `/projects/orders/snapshots/${ids.fresh}/document`);
    expect(kept.status).toBe(200);
    const usage = await runInDurableObject(
      store(),
      (_instance, state) =>
        state.storage.sql
          .exec<{ n: number }>(
            "SELECT COUNT(*) AS n FROM blobs b WHERE NOT EXISTS (SELECT 1 FROM contracts WHERE content_hash = b.hash) AND NOT EXISTS (SELECT 1 FROM snapshots WHERE content_hash = b.hash) AND NOT EXISTS (SELECT 1 FROM verdicts WHERE verdict_hash = b.hash) AND NOT EXISTS (SELECT 1 FROM contract_changes WHERE verdict_hash = b.hash) AND NOT EXISTS (SELECT 1 FROM contract_forms WHERE form_hash = b.hash)",
          )
          .one().n,
    );
    expect(usage).toBe(0);
    // The project's store reported its run to the organization's, which lists every store's runs.
    const runs = (await organizationStore("acme").storageUsage()).retentionRuns;
    expect(runs[0]).toMatchObject({ snapshots: 3, builds: 1 });
    expect(runs[0]!.contentBytes).toBeGreaterThan(8192 * 16);
  });

  it("a project's own policy goes over the organization's, and settings past the operator's cap are refused", async () => {
    const refused = await operator("PATCH", "/organizations/acme", { retention: { snapshotDays: 4000 } });
    expect(refused.status).toBe(400);
    const capped = await operator("PATCH", "/organizations/acme", {
      retention: { projects: { orders: { snapshotDays: 400 } } },
    });
    expect(capped.status).toBe(400);
    expect(capped.body.detail).toMatch(/retention\.projects\.orders\.snapshotDays.*365 days/);
    const own = await operator("PATCH", "/organizations/acme", {
      retention: { snapshotDays: 30, keepPerBranch: 1, projects: { orders: { keepPerBranch: 0 } } },
    });
    expect(own.status).toBe(200);
    await age("snapshots", ids.feature!, 40);
    expect(await runDurableObjectAlarm(store())).toBe(true);
    // keepPerBranch 0 for orders: only the project's newest is left.
    const listed = (await callJson(ana, "GET", "/projects/orders/snapshots")).body.snapshots;
    expect(listed.map((s: { number: number }) => s.number)).toEqual([5]);
    const next = await callJson(ana, "POST", "/projects/orders/snapshots?commit=new0003", text(conformingSnapshot()));
    expect(next.body.snapshot.number).toBe(6);
  });
});
