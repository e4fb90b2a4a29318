/**
 * A deleted organization's data is removed a bounded part per directory alarm (src/directory/store.ts purgeDue):
 * the organization's store purges PURGE_PROJECTS_PER_CALL project stores per call and forgets each one purged, so an
 * organization of any number of projects is removed without one invocation calling every store.
 */
import { env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { organizationSpace, projectSpace } from "../../../src/contracts/store/bucket";
import { projectStoreName } from "../../../src/contracts/store/project-homes";
import { PURGE_PROJECTS_PER_CALL } from "../../../src/contracts/store/rpc";
import type { Env } from "../../../src/env";
import { callJson } from "../contracts-api/api-helpers";
import { ordersContract, text } from "../contracts-api/fixtures";
import { restPrincipal } from "../harness";
import { BASE } from "../helpers";
import { SELF } from "../self";
import { OPERATOR_KEY, operator } from "./helpers";

const workerEnv = env as unknown as Env;
const directory = () => workerEnv.DIRECTORY.get(workerEnv.DIRECTORY.idFromName("directory"));
const contractStore = (name: string) => workerEnv.CONTRACT_STORE.get(workerEnv.CONTRACT_STORE.idFromName(name));

/** Project names the organization's store lists as having stores of their own. */
const homes = (id: string) =>
  runInDurableObject(contractStore(id), (_instance, state) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM project_homes ORDER BY name")
      .toArray()
      .map((row) => row.name),
  );

describe("a deleted organization's data", () => {
  it("is removed a bounded number of project stores per alarm, every store and bucket object of it in the end", async () => {
    const id = "many-projects";
    expect((await operator("POST", "/organizations", { id, name: "Many projects" })).status).toBe(201);
    const writer = restPrincipal("ana", "contracts.read contracts.write snapshots.write", { organizationId: id });
    // Two real projects with a document in the bucket each (over 64 KiB), the others listed as the store lists
    // projects in stores of their own (an empty store, as a project whose records retention removed).
    const large = text(ordersContract({ "x-padding": "".padEnd(70_000, "~") }));
    for (const project of ["aa-first", "zz-last"])
      expect((await callJson(writer, "POST", `/projects/${project}/contracts`, large)).status).toBe(201);
    const others = Array.from({ length: PURGE_PROJECTS_PER_CALL + 3 }, (_, n) => `p-${String(n).padStart(3, "0")}`);
    await runInDurableObject(contractStore(id), (_instance, state) => {
      for (const name of others)
        state.storage.sql.exec(
          "INSERT INTO project_homes (name, summary, updated_at) VALUES (?, '{}', ?)",
          name,
          new Date().toISOString(),
        );
    });
    expect(await homes(id)).toHaveLength(others.length + 2);
    const bucket = async (space: string) => (await workerEnv.DOCUMENTS.list({ prefix: `${space}/` })).objects.length;
    expect(await bucket(projectSpace(id, "zz-last"))).toBeGreaterThan(0);

    const archive = await SELF.fetch(`${BASE}/operator/v1/organizations/${id}/export`, {
      headers: { Authorization: `Bearer ${OPERATOR_KEY}` },
    });
    expect((await archive.text()).length).toBeGreaterThan(0);
    expect((await operator("PUT", "/caps", { deletionGraceDays: 0 })).status).toBe(200);
    try {
      // The deletion's own call purges the first part; the organization stays deleting (refused) until the rest.
      expect((await operator("DELETE", `/organizations/${id}`)).status).toBe(202);
      const afterFirst = await homes(id);
      expect(afterFirst.length).toBe(others.length + 2 - PURGE_PROJECTS_PER_CALL);
      expect(afterFirst).toContain("zz-last");
      expect((await operator("GET", `/organizations/${id}`)).body.organization.status).toBe("deleting");
      expect(await bucket(projectSpace(id, "aa-first"))).toBe(0);
      expect(await bucket(projectSpace(id, "zz-last"))).toBeGreaterThan(0);
      const alarm = await runInDurableObject(directory(), (_instance, state) => state.storage.getAlarm());
      expect(alarm).not.toBeNull();
      expect(alarm as number).toBeLessThan(Date.now() + 5_000);

      expect(await runDurableObjectAlarm(directory())).toBe(true);
      expect((await operator("GET", `/organizations/${id}`)).status).toBe(404);
      expect(await bucket(projectSpace(id, "zz-last"))).toBe(0);
      expect(await bucket(organizationSpace(id))).toBe(0);
      expect(await contractStore(id).exportTableNames()).toEqual([]);
      expect(await contractStore(projectStoreName(id, "zz-last")).exportTableNames()).toEqual([]);
      // Asked again (a directory alarm retrying the organization's other stores), a purged store is done at once.
      expect(await contractStore(id).purgeOrganization(id)).toEqual({ done: true, projectsLeft: 0 });
    } finally {
      expect((await operator("PUT", "/caps", {})).status).toBe(200);
    }
  }, 90_000); // 25 stores started, each purged, while the suite runs two files at once

  it("goes on with the others when some organizations' purges keep failing, and tries those again later", async () => {
    // Twelve organizations already past their grace (as an alarm finds them), the first ten in the table's order
    // with an organization store that fails every purge: PURGES_PER_ALARM (10) of them fill one alarm's turns.
    const ids = Array.from({ length: 12 }, (_, n) => `fair-${String(n).padStart(2, "0")}`);
    const failing = new Set(ids.slice(0, 10));
    const past = Date.now() - 60_000;
    await runInDurableObject(directory(), (_instance, state) => {
      for (const [n, id] of ids.entries())
        state.storage.sql.exec(
          `INSERT INTO organizations (id, status, settings, revision, created_at, updated_at, delete_after)
           VALUES (?, 'deleting', ?, 1, ?, ?, ?)`,
          id,
          JSON.stringify({ name: id, emailDomains: [], claimValues: [], defaultRole: "member", membersOnly: false }),
          new Date().toISOString(),
          new Date().toISOString(),
          past + n,
        );
    });
    /** The directory's own alarm, run as the runtime runs it, with the failing organizations' stores refusing. */
    const alarmWithFailures = async () => {
      await runInDurableObject(directory(), (instance, st) => {
        const real = workerEnv.CONTRACT_STORE;
        const failingStores: DurableObjectNamespace = Object.create(real, {
          get: {
            value: (id: DurableObjectId) =>
              failing.has(id.name ?? "")
                ? { purgeOrganization: () => Promise.reject(new Error("store unreachable")) }
                : real.get(id),
          },
          idFromName: { value: (name: string) => real.idFromName(name) },
        });
        const own = (instance as unknown as { env: Env }).env;
        Object.defineProperty(instance, "env", {
          value: { ...own, CONTRACT_STORE: failingStores },
          configurable: true,
        });
        return st.storage.setAlarm(Date.now() + 3_600_000);
      });
      expect(await runDurableObjectAlarm(directory())).toBe(true);
    };
    const status = async (id: string) =>
      runInDurableObject(
        directory(),
        (_instance, st) =>
          st.storage.sql.exec<{ status: string }>("SELECT status FROM organizations WHERE id = ?", id).one().status,
      );

    await alarmWithFailures();
    await alarmWithFailures();
    expect(await status("fair-10")).toBe("deleted");
    expect(await status("fair-11")).toBe("deleted");
    for (const id of failing) expect(await status(id)).toBe("deleting");
    // The failed ones are tried again a minute after their failure, not before: the alarm is set for then.
    const alarm = await runInDurableObject(directory(), (_instance, st) => st.storage.getAlarm());
    expect(alarm as number).toBeGreaterThan(Date.now() + 50_000);
    expect(alarm as number).toBeLessThan(Date.now() + 61_000);

    // Their minute over and their stores answering again, the next alarm removes them.
    failing.clear();
    await runInDurableObject(directory(), (_instance, st) => {
      st.storage.sql.exec("UPDATE purge_turns SET next_at = ?", Date.now() - 1);
    });
    await alarmWithFailures();
    for (const id of ids.slice(0, 10)) expect(await status(id)).toBe("deleted");
    const turns = await runInDurableObject(
      directory(),
      (_instance, st) => st.storage.sql.exec("SELECT * FROM purge_turns").toArray().length,
    );
    expect(turns).toBe(0);
  }, 60_000);

  it("of an organization deleted before deletions forgot people is forgotten at the directory's next start", async () => {
    // The layout an upgraded deployment starts from: an organization deleted by the earlier purge, which kept its
    // invitations and its change log whole; the directory has not yet run this upgrade.
    const id = "deleted-before";
    const now = new Date().toISOString();
    await runInDurableObject(directory(), (_instance, st) => {
      const sql = st.storage.sql;
      sql.exec(
        `INSERT INTO organizations (id, status, settings, revision, created_at, updated_at) VALUES (?, 'deleted', ?, 3, ?, ?)`,
        id,
        JSON.stringify({ name: `(deleted) ${id}`, emailDomains: [], claimValues: [], defaultRole: "member" }),
        now,
        now,
      );
      const log = (actor: string, action: string, before: unknown, after: unknown) =>
        sql.exec(
          "INSERT INTO changes (time, organization_id, actor, action, before, after) VALUES (?, ?, ?, ?, ?, ?)",
          now,
          id,
          actor,
          action,
          before === null ? null : JSON.stringify(before),
          after === null ? null : JSON.stringify(after),
        );
      log("operator", "member.added", null, { email: "old@before.example", role: "admin", status: "active" });
      log("old@before.example", "invitation.created", null, { email: "new@before.example", role: "member" });
      log("operator", "organization.deletion-started", { status: "active" }, { status: "deleting" });
      log("platform", "organization.deleted", { status: "deleting" }, { status: "deleted" });
      sql.exec(
        `INSERT INTO invitations (token_hash, organization_id, email, role, created_by, created_at, expires_at)
         VALUES (?, ?, 'new@before.example', 'member', 'old@before.example', ?, ?)`,
        "e".repeat(64),
        id,
        now,
        Date.now() + 60_000,
      );
      sql.exec("DELETE FROM platform WHERE key LIKE 'upgrade:%'");
    });
    await evictDurableObject(directory());

    const changes = (await operator("GET", `/organizations/${id}/changes`)).body.changes;
    expect(changes.map((c: { action: string }) => c.action)).toEqual([
      "organization.deleted",
      "organization.deletion-started",
      "invitation.created",
      "member.added",
    ]);
    expect(JSON.stringify(changes)).not.toContain("before.example");
    expect(changes[0]).toMatchObject({ before: { status: "deleting" }, after: { status: "deleted" } });
    expect(changes[2]).toMatchObject({ actor: "(member)", before: null, after: null });
    const invitations = await runInDurableObject(
      directory(),
      (_instance, st) =>
        st.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM invitations WHERE organization_id = ?", id).one()
          .n,
    );
    expect(invitations).toBe(0);
    // Active organizations keep their log whole.
    expect(JSON.stringify((await operator("GET", "/organizations/acme/changes")).body.changes)).toContain(
      "acme.example",
    );
  });
});
