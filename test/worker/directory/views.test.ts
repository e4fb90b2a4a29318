/**
 * The directory's per-organization views (src/directory/view.ts): the hot path reads an organization from its view,
 * which answers from memory until the organization changes, so the one directory object is read once per change
 * rather than by every isolate every second. The directory tells a view of each change it logs, from a list written
 * with the change (view_changes), and its alarm tells the views it could not reach; the services that make a change
 * tell the view too before they answer.
 */
import { env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import {
  directoryStub,
  forgetOrganization,
  organizationView,
  resolveOrganization,
} from "../../../src/directory/client";
import { VIEW_MAX_AGE_MS } from "../../../src/directory/view";
import type { Env } from "../../../src/env";
import { operator } from "./helpers";

const workerEnv = env as unknown as Env;
const directory = () => workerEnv.DIRECTORY.get(workerEnv.DIRECTORY.idFromName("directory"));
const viewStatus = async (id: string) => (await organizationView(workerEnv, id).resolve())?.record.status;

/** Changes the organization's status in the directory's SQL alone: no change logged, so no view is told. */
const setStatusUnlogged = (id: string, status: string) =>
  runInDurableObject(directory(), (_instance, state) => {
    state.storage.sql.exec("UPDATE organizations SET status = ? WHERE id = ?", status, id);
  });

const listedViews = () =>
  runInDurableObject(directory(), (_instance, state) =>
    state.storage.sql
      .exec<{ organization_id: string }>("SELECT organization_id FROM view_changes ORDER BY organization_id")
      .toArray()
      .map((row) => row.organization_id),
  );

/** How far away the directory's next alarm is, in ms. */
const nextAlarmIn = async () =>
  ((await runInDurableObject(directory(), (_instance, state) => state.storage.getAlarm())) as number) - Date.now();

describe("an organization's view", () => {
  it("answers from memory, not from the directory, until it is told of a change", async () => {
    const id = "view-memory";
    expect((await operator("POST", "/organizations", { id, name: "View memory" })).status).toBe(201);
    expect(await viewStatus(id)).toBe("active");
    await setStatusUnlogged(id, "suspended");
    // Read again and again: the directory is not asked, so the change it did not announce is not seen.
    for (let i = 0; i < 5; i++) expect(await viewStatus(id)).toBe("active");
    await organizationView(workerEnv, id).forget();
    // Requests that find no entry at the same time share one read of the directory.
    expect(await Promise.all(Array.from({ length: 10 }, () => viewStatus(id)))).toEqual(Array(10).fill("suspended"));
    await setStatusUnlogged(id, "active");
    await organizationView(workerEnv, id).forget();
  });

  it("is told by the directory of every change it logs, with no service involved", async () => {
    const id = "view-told";
    expect((await operator("POST", "/organizations", { id, name: "View told" })).status).toBe(201);
    expect(await viewStatus(id)).toBe("active");
    // A change through the directory's RPC alone (as another isolate's write whose service died before telling).
    expect((await directoryStub(workerEnv).setStatus(id, "suspended", "operator")).ok).toBe(true);
    await vi.waitFor(async () => expect(await viewStatus(id)).toBe("suspended"), { timeout: 3000, interval: 20 });
    await vi.waitFor(async () => expect(await listedViews()).not.toContain(id), { timeout: 3000, interval: 20 });
    // And the isolate cache in front of it sees it once its entry is dropped or refreshed.
    forgetOrganization(id);
    expect((await resolveOrganization(workerEnv, id))?.record.status).toBe("suspended");
  });

  /** The change stored and the view listed, as a directory leaves them when telling the view did not happen. */
  const changedUntold = async (id: string, alarmAt?: number) => {
    // The view already told of the organization's creation, so the listing below is the only one.
    await vi.waitFor(async () => expect(await listedViews()).not.toContain(id), { timeout: 3000, interval: 20 });
    await runInDurableObject(directory(), async (_instance, state) => {
      state.storage.sql.exec("UPDATE organizations SET status = 'suspended' WHERE id = ?", id);
      state.storage.sql.exec("INSERT INTO view_changes (organization_id, change_seq) VALUES (?, 1)", id);
      if (alarmAt !== undefined) await state.storage.setAlarm(alarmAt);
    });
  };

  it("is told by the directory's alarm when it could not be told at the change", async () => {
    const id = "view-retried";
    expect((await operator("POST", "/organizations", { id, name: "View retried" })).status).toBe(201);
    expect(await viewStatus(id)).toBe("active");
    // A view that could not be reached: the alarm is set VIEW_RETRY_MS later (here later still, and run now).
    await changedUntold(id, Date.now() + 60_000);
    expect(await viewStatus(id)).toBe("active");
    // The operator sees it waiting (GET /operator/v1/directory), until the alarm has told it.
    expect((await operator("GET", "/directory")).body.directory.viewsToTell).toBe(1);
    expect(await runDurableObjectAlarm(directory())).toBe(true);
    expect((await operator("GET", "/directory")).body.directory.viewsToTell).toBe(0);
    expect(await listedViews()).not.toContain(id);
    expect(await viewStatus(id)).toBe("suspended");
  });

  it("is told by the directory's next start when the directory stopped before telling it", async () => {
    const id = "view-restart";
    expect((await operator("POST", "/organizations", { id, name: "View restart" })).status).toBe(201);
    expect(await viewStatus(id)).toBe("active");
    await changedUntold(id);
    await evictDurableObject(directory());
    // Any request wakes the directory; its start tells the views still listed.
    expect(await directoryStub(workerEnv).anyOwnProvider()).toBe(false);
    await vi.waitFor(async () => expect(await viewStatus(id)).toBe("suspended"), { timeout: 3000, interval: 20 });
    expect(await listedViews()).not.toContain(id);
  });

  it("is told by the services before they answer, so the change applies to the next request", async () => {
    const id = "view-services";
    expect((await operator("POST", "/organizations", { id, name: "View services" })).status).toBe(201);
    expect((await resolveOrganization(workerEnv, id))?.record.status).toBe("active");
    expect((await operator("POST", `/organizations/${id}/suspend`)).status).toBe(200);
    expect((await resolveOrganization(workerEnv, id))?.record.status).toBe("suspended");
    expect(await viewStatus(id)).toBe("suspended");
  });

  it("reads the directory again once its entry is VIEW_MAX_AGE_MS old, for what no change announces", async () => {
    const id = "view-aged";
    expect((await operator("POST", "/organizations", { id, name: "View aged" })).status).toBe(201);
    expect(await viewStatus(id)).toBe("active");
    await setStatusUnlogged(id, "suspended");
    expect(await viewStatus(id)).toBe("active");
    await runInDurableObject(organizationView(workerEnv, id), (instance) => {
      const held = (instance as unknown as { read?: { at: number } }).read;
      if (!held) throw new Error("the view holds no entry");
      held.at -= VIEW_MAX_AGE_MS;
    });
    expect(await viewStatus(id)).toBe("suspended");
  });

  it("is told even when views listed before it keep failing, which are tried less often the longer they fail", async () => {
    const id = "view-behind-failures";
    expect((await operator("POST", "/organizations", { id, name: "View behind failures" })).status).toBe(201);
    expect(await viewStatus(id)).toBe("active");
    await vi.waitFor(async () => expect(await listedViews()).not.toContain(id), { timeout: 3000, interval: 20 });
    // More unreachable views than one round tells, all listed before this organization's change.
    const unreachable = Array.from({ length: 60 }, (_, n) => `unreachable-${String(n).padStart(2, "0")}`);
    let own: Env | undefined;
    await runInDurableObject(directory(), async (instance, state) => {
      own = (instance as unknown as { env: Env }).env;
      const real = workerEnv.DIRECTORY_VIEW;
      const failing: DurableObjectNamespace = Object.create(real, {
        get: {
          value: (viewId: DurableObjectId) =>
            unreachable.includes(viewId.name ?? "")
              ? { forget: () => Promise.reject(new Error("view unreachable")) }
              : real.get(viewId),
        },
        idFromName: { value: (name: string) => real.idFromName(name) },
      });
      Object.defineProperty(instance, "env", { value: { ...own, DIRECTORY_VIEW: failing }, configurable: true });
      for (const [n, name] of unreachable.entries())
        state.storage.sql.exec("INSERT INTO view_changes (organization_id, change_seq) VALUES (?, ?)", name, 1 + n);
      state.storage.sql.exec("UPDATE organizations SET status = 'suspended' WHERE id = ?", id);
      state.storage.sql.exec("INSERT INTO view_changes (organization_id, change_seq) VALUES (?, 100)", id);
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    try {
      expect(await runDurableObjectAlarm(directory())).toBe(true);
      expect(await viewStatus(id)).toBe("suspended");
      expect(await listedViews()).toEqual(unreachable);
      // Tried again a second later (VIEW_RETRY_MS), not a minute.
      expect(await nextAlarmIn()).toBeLessThanOrEqual(1_000);
      // Each round that still fails waits twice as long as the one before, up to 30 s (VIEW_RETRY_MAX_MS).
      // (Each round is run now, as the alarm: set far off first, as a fired alarm no longer is, so the round sets its own.)
      for (const wait of [2_000, 4_000, 8_000, 16_000, 30_000, 30_000]) {
        await runInDurableObject(directory(), (_instance, state) => state.storage.setAlarm(Date.now() + 60_000));
        expect(await runDurableObjectAlarm(directory())).toBe(true);
        const next = await nextAlarmIn();
        expect(next).toBeLessThanOrEqual(wait);
        expect(next).toBeGreaterThan(wait / 2 + 100);
      }
      // A round that tells every view starts again from a second.
      await runInDurableObject(directory(), (_instance, state) => {
        state.storage.sql.exec("DELETE FROM view_changes WHERE organization_id LIKE 'unreachable-%'");
        state.storage.sql.exec("INSERT INTO view_changes (organization_id, change_seq) VALUES (?, 101)", id);
      });
      expect(await runDurableObjectAlarm(directory())).toBe(true);
      expect(await listedViews()).toEqual([]);
      await runInDurableObject(directory(), async (_instance, state) => {
        state.storage.sql.exec("INSERT INTO view_changes (organization_id, change_seq) VALUES ('unreachable-00', 102)");
        await state.storage.setAlarm(Date.now() + 60_000);
      });
      expect(await runDurableObjectAlarm(directory())).toBe(true);
      expect(await nextAlarmIn()).toBeLessThanOrEqual(1_000);
    } finally {
      await runInDurableObject(directory(), (instance, state) => {
        Object.defineProperty(instance, "env", { value: own, configurable: true });
        state.storage.sql.exec("DELETE FROM view_changes WHERE organization_id LIKE 'unreachable-%'");
      });
    }
  });

  it("works with a directory stored before views existed: its next start adds their list", async () => {
    const id = "view-upgrade";
    expect((await operator("POST", "/organizations", { id, name: "View upgrade" })).status).toBe(201);
    // The directory's tables as a deployment from before views has them.
    await vi.waitFor(async () => expect(await listedViews()).toEqual([]), { timeout: 3000, interval: 20 });
    await evictDurableObject(directory());
    await runInDurableObject(directory(), (_instance, state) => {
      state.storage.sql.exec("DROP TABLE view_changes");
    });
    await evictDurableObject(directory());
    expect(await viewStatus(id)).toBe("active");
    expect((await operator("POST", `/organizations/${id}/suspend`)).status).toBe(200);
    expect(await viewStatus(id)).toBe("suspended");
    expect(await listedViews()).toEqual([]);
    expect((await operator("GET", `/organizations/${id}`)).body.organization).toMatchObject({
      id,
      status: "suspended",
    });
  });

  it("answers null for an organization the directory does not have", async () => {
    expect(await organizationView(workerEnv, "no-such-organization").resolve()).toBeNull();
    expect(await resolveOrganization(workerEnv, "no-such-organization")).toBeNull();
  });
});
