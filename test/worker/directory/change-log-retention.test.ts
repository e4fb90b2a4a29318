/**
 * The directory's change log is kept changeLogRetentionDays (a platform cap, 730 by default): older entries are
 * removed as new changes are logged, at most 100 per change, so the one directory object of a deployment does not grow
 * with every change ever made; and what the operator sees of that object as it grows (GET /operator/v1/directory).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { operator } from "./helpers";

const DAY = 24 * 60 * 60 * 1000;
const directory = () => env.DIRECTORY.get(env.DIRECTORY.idFromName("directory"));

/**
 * The log as a deployment that has run for a while holds it: these entries in the order given (oldest first, so seq
 * grows with time as logging makes it), `[count, daysAgo, action]` each, and nothing else.
 */
async function historyOf(...entries: Array<[number, number, string]>): Promise<void> {
  await runInDurableObject(directory(), (_instance, state) => {
    state.storage.sql.exec("DELETE FROM changes");
    for (const [count, daysAgo, action] of entries)
      for (let i = 0; i < count; i++)
        state.storage.sql.exec(
          "INSERT INTO changes (time, organization_id, actor, action) VALUES (?, 'acme', 'operator', ?)",
          new Date(Date.now() - daysAgo * DAY).toISOString(),
          action,
        );
  });
}

async function countOf(action: string): Promise<number> {
  return runInDurableObject(
    directory(),
    (_instance, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM changes WHERE action = ?", action).one().n,
  );
}

describe("the change log's retention", () => {
  it("removes entries past the retention as changes are logged, 100 per change, and keeps the rest", async () => {
    expect((await operator("GET", "/caps")).body.caps.changeLogRetentionDays).toBe(730);
    // 150 past the retention, then 3 inside it.
    await historyOf([150, 800, "test.expired"], [3, 700, "test.kept"]);

    const rename = async (name: string) =>
      expect((await operator("PATCH", "/organizations/acme", { name })).status).toBe(200);
    await rename("Acme, renamed once");
    expect(await countOf("test.expired")).toBe(50);
    await rename("Acme, renamed twice");
    expect(await countOf("test.expired")).toBe(0);
    expect(await countOf("test.kept")).toBe(3);

    // The change log still pages from the newest entry down to the oldest kept.
    const page = await operator("GET", "/organizations/acme/changes?limit=200");
    const actions = page.body.changes.map((change: { action: string }) => change.action);
    expect(actions.slice(0, 2)).toEqual(["settings.changed", "settings.changed"]);
    expect(actions.filter((action: string) => action === "test.kept")).toHaveLength(3);
    expect(actions).not.toContain("test.expired");
  });

  it("follows the operator's cap: a shorter one applies from the change that sets it; under 30 days is refused", async () => {
    await historyOf([2, 400, "test.shortened"], [1, 100, "test.kept"]);
    const refused = await operator("PUT", "/caps", { changeLogRetentionDays: 10 });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("changeLogRetentionDays");
    expect(await countOf("test.shortened")).toBe(2);

    try {
      const set = await operator("PUT", "/caps", { changeLogRetentionDays: 365 });
      expect(set.status).toBe(200);
      expect(set.body.caps.changeLogRetentionDays).toBe(365);
      expect(await countOf("test.shortened")).toBe(0);
      expect(await countOf("test.kept")).toBe(1);
    } finally {
      expect((await operator("PUT", "/caps", {})).body.caps.changeLogRetentionDays).toBe(730);
    }
  });

  it("reads caps stored before the cap existed with its default, keeping what they set", async () => {
    // What PUT /caps stored before changeLogRetentionDays: the other caps, without it.
    await runInDurableObject(directory(), (_instance, state) => {
      state.storage.sql.exec(
        `INSERT INTO platform (key, value) VALUES ('caps', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        JSON.stringify({ maxCallsPerMinute: 300, maxAuditRetentionDays: 180, deletionGraceDays: 3 }),
      );
    });
    try {
      expect((await operator("GET", "/caps")).body.caps).toMatchObject({
        maxCallsPerMinute: 300,
        maxAuditRetentionDays: 180,
        deletionGraceDays: 3,
        changeLogRetentionDays: 730,
      });
      await historyOf([1, 800, "test.expired"], [1, 10, "test.kept"]);
      expect((await operator("PATCH", "/organizations/acme", { name: "Acme, after the upgrade" })).status).toBe(200);
      expect(await countOf("test.expired")).toBe(0);
      expect(await countOf("test.kept")).toBe(1);
    } finally {
      expect((await operator("PUT", "/caps", {})).status).toBe(200);
    }
  });

  it("shows the operator what the directory holds: its size, organizations by status, members, invitations, the log", async () => {
    await historyOf([4, 100, "test.kept"]);
    const seen = await operator("GET", "/directory");
    expect(seen.status).toBe(200);
    const usage = seen.body.directory;
    const truth = await runInDurableObject(directory(), (_instance, state) => {
      const n = (query: string) => state.storage.sql.exec<{ n: number }>(query).one().n;
      return {
        databaseBytes: state.storage.sql.databaseSize,
        active: n("SELECT COUNT(*) AS n FROM organizations WHERE status = 'active'"),
        members: n("SELECT COUNT(*) AS n FROM members"),
        invitations: n("SELECT COUNT(*) AS n FROM invitations"),
      };
    });
    expect(usage.databaseBytes).toBeGreaterThan(0);
    expect(usage.databaseBytes).toBeLessThanOrEqual(truth.databaseBytes * 2);
    expect(usage.organizations).toMatchObject({ active: truth.active, deleted: expect.any(Number) });
    expect(usage.organizations.active).toBeGreaterThanOrEqual(2);
    expect(usage.members).toBe(truth.members);
    expect(usage.invitations.total).toBe(truth.invitations);
    expect(usage.changes).toEqual({
      entries: 4,
      oldest: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      retentionDays: 730,
    });
    expect(Date.now() - Date.parse(usage.changes.oldest)).toBeGreaterThan(99 * DAY);
    expect(usage.viewsToTell).toBe(0);
    expect((await operator("GET", "/directory", undefined, { Authorization: "Bearer not-the-key" })).status).toBe(401);
  });
});
