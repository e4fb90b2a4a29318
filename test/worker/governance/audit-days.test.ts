/**
 * The audit trail split by day (src/audit/trail.ts, store.ts): each record is kept in its organization's store of its
 * UTC day, listed in the organization's own store, which keeps the records from before the split; a query reads the
 * days newest first, then those records, page after page; retention empties a day's store and removes it from the
 * list; a deleted organization's day stores are purged a bounded number per call.
 */
import { env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { encodeCursor, listAuditEvents } from "../../../src/audit/query";
import type { AuditRecord } from "../../../src/audit/record";
import { auditSinkFor } from "../../../src/audit/sink";
import { DAY_STORES_PER_PURGE } from "../../../src/audit/store";
import { auditTrailIn, dayAuditStore, ownAuditStore } from "../../../src/audit/trail";
import { dayOfTime } from "../../../src/audit/trail-days";
import type { Env } from "../../../src/env";
import { signedIn } from "../console/console-helpers";
import { callJson } from "../contracts-api/api-helpers";
import { restPrincipal } from "../harness";
import { appendOne, auditRecord } from "../helpers";
import { OPERATOR_KEY, operator } from "../directory/helpers";
import { BASE } from "../helpers";
import { SELF } from "../self";

const DAY = 24 * 60 * 60 * 1000;
const workerEnv = env as unknown as Env;

/** How many records an audit object holds, and whether it still has its tables (a removed store has none). */
async function held(stub: DurableObjectStub): Promise<{ records: number | null; days: number | null }> {
  return runInDurableObject(stub, (_instance, state) => {
    const has = (table: string) =>
      state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", table).toArray().length >
      0;
    const count = (table: string) =>
      has(table) ? state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n : null;
    return { records: count("audit_events"), days: count("audit_shards") };
  });
}

/** Records of `organizationId` at the given times, named by their index in the target. */
function recordsAt(organizationId: string, times: number[], overrides: Partial<AuditRecord> = {}): AuditRecord[] {
  return times.map((time, index) =>
    auditRecord(organizationId, { time: new Date(time).toISOString(), target: `tool_${index}`, ...overrides }),
  );
}

/** Every record of the query, page after page of `limit`, through the REST/MCP reader with its cursors. */
async function everyPage(organizationId: string, limit: number, filters: Record<string, string> = {}) {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const page = await listAuditEvents(workerEnv, organizationId, { limit, ...filters, ...(cursor ? { cursor } : {}) });
    expect(page.events.length).toBeLessThanOrEqual(limit);
    seen.push(...page.events.map((event) => event.target));
    if (page.nextCursor === null) return seen;
    expect(page.events).toHaveLength(limit);
    cursor = page.nextCursor;
  }
  throw new Error("more than 50 pages");
}

describe("the audit trail, split by day", () => {
  it("keeps each record in its day's store, listed in the organization's own store, newest day first", async () => {
    const organization = "days-org";
    const now = Date.now();
    const times = [now, now - DAY, now - DAY - 1_000, now - 2 * DAY];
    const sink = auditSinkFor(workerEnv);
    // Through the sink, as every surface writes: concurrently, so records of several days share a batch.
    await Promise.all(recordsAt(organization, times).map((record) => sink.record(record)));

    const days = [...new Set(times.map(dayOfTime))];
    expect(await ownAuditStore(workerEnv.AUDIT_LOG, organization).trailIndex(organization)).toEqual({ days });
    const perDay = await Promise.all(days.map((day) => held(dayAuditStore(workerEnv.AUDIT_LOG, organization, day))));
    expect(perDay.map((counts) => counts.records)).toEqual(
      days.map((day) => times.filter((t) => dayOfTime(t) === day).length),
    );
    // The organization's own store holds the list only.
    expect(await held(ownAuditStore(workerEnv.AUDIT_LOG, organization))).toEqual({ records: 0, days: days.length });
    // Another organization is told nothing of this list.
    expect(await ownAuditStore(workerEnv.AUDIT_LOG, organization).trailIndex("intruder-org")).toEqual({ days: [] });
  });

  it("reads the days newest first and then the records from before the split, each once, in pages", async () => {
    const organization = "paged-days-org";
    const now = Date.now();
    // Records from before the split: in the organization's own store, as every store before held them.
    const legacy = recordsAt(organization, [now - 6 * DAY, now - 5 * DAY]);
    for (const record of legacy)
      expect(await appendOne(ownAuditStore(workerEnv.AUDIT_LOG, organization), record)).toEqual({ stored: true });
    // After it: eleven records over four days, three of them in one second of one day.
    const times = [now - 4 * DAY, now - 3 * DAY, now - 3 * DAY + 1, now - 3 * DAY + 2, now - 2 * DAY];
    times.push(now - 2 * DAY + 5, now - DAY, now - DAY + 1, now - 10, now - 5, now - 1);
    const recent = recordsAt(organization, times).map((record, index) => ({ ...record, target: `day_${index}` }));
    const trail = auditTrailIn(workerEnv.AUDIT_LOG)(organization);
    expect(await trail.appendBatch(recent.map((record) => ({ deliveryId: null, record })))).toEqual(
      recent.map(() => ({ stored: true })),
    );

    const newestFirst = [...recent.map((record) => record.target).reverse(), "tool_1", "tool_0"];
    for (const limit of [1, 2, 3, 5, 13, 100]) expect(await everyPage(organization, limit)).toEqual(newestFirst);

    // Filters and time ranges reach across days: only the days the range names are read.
    const rare = {
      ...recordsAt(organization, [now - 3 * DAY + 3])[0]!,
      outcome: "rate-limited" as const,
      target: "rare",
    };
    await appendOne(trail, rare);
    expect(await everyPage(organization, 2, { outcome: "rate-limited" })).toEqual(["rare"]);
    const from = new Date(now - 2 * DAY).toISOString();
    const to = new Date(now - DAY + 1).toISOString();
    expect(await everyPage(organization, 1, { from, to })).toEqual(["day_6", "day_5", "day_4"]);
    expect(await everyPage(organization, 2, { to: new Date(now - 4 * DAY).toISOString() })).toEqual([
      "tool_1",
      "tool_0",
    ]);

    // A cursor issued before the split (no day) continues in the organization's own store, where its records are.
    const input = { limit: 5 };
    const old = await encodeCursor({ timeMs: now - 5 * DAY, seq: 2 }, input);
    const continued = await listAuditEvents(workerEnv, organization, { ...input, cursor: old });
    expect(continued.events.map((event) => event.target)).toEqual(["tool_0"]);
    expect(continued.nextCursor).toBeNull();
  });

  it("refuses a record of another day, a day that is none, and a list entry for another organization", async () => {
    const organization = "strict-days-org";
    const today = dayOfTime(Date.now());
    const store = dayAuditStore(workerEnv.AUDIT_LOG, organization, today);
    const [record] = recordsAt(organization, [Date.now()]);
    expect(await store.appendBatch([{ deliveryId: null, record: record! }], today)).toEqual([{ stored: true }]);
    const [yesterday] = recordsAt(organization, [Date.now() - DAY - 60_000]);
    expect(await store.appendBatch([{ deliveryId: null, record: yesterday! }], today)).toEqual([
      { stored: false, problem: expect.stringMatching(/^a record of \d{4}-\d{2}-\d{2} sent to the store of /) },
    ]);
    expect(await store.appendBatch([{ deliveryId: null, record: record! }], "tomorrow")).toEqual([
      { stored: false, problem: 'not a day: "tomorrow"' },
    ]);
    // The organization's own store is not a day's store, and a day store lists no days.
    expect(
      await ownAuditStore(workerEnv.AUDIT_LOG, organization).appendBatch(
        [{ deliveryId: null, record: record! }],
        today,
      ),
    ).toEqual([{ stored: false, problem: "this audit store is not this day's" }]);
    expect(await ownAuditStore(workerEnv.AUDIT_LOG, organization).registerDay("other-org", today, Date.now())).toEqual({
      stored: false,
      problem: "this audit store belongs to another organization",
    });
    expect(await store.registerDay(organization, today, Date.now())).toEqual({
      stored: false,
      problem: "a day's store lists no days",
    });
    // A day's first batch that opens with a malformed record still stores the others, and lists the day.
    const fresh = "mixed-first-org";
    const [good] = recordsAt(fresh, [Date.now()]);
    const bad = { ...good!, correlationId: "bad-first", organizationId: "" };
    expect(
      await auditTrailIn(workerEnv.AUDIT_LOG)(fresh).appendBatch([
        { deliveryId: null, record: bad },
        { deliveryId: null, record: good! },
      ]),
    ).toEqual([
      { stored: false, problem: expect.stringContaining("malformed record: organizationId") },
      { stored: true },
    ]);
    expect((await ownAuditStore(workerEnv.AUDIT_LOG, fresh).trailIndex(fresh)).days).toEqual([today]);
    // A record whose time is no time is refused by the organization's store, which names the field.
    const [timeless] = recordsAt(organization, [Date.now()], { time: "yesterday" });
    expect(await appendOne(auditTrailIn(workerEnv.AUDIT_LOG)(organization), timeless!)).toMatchObject({
      stored: false,
      problem: expect.stringContaining("time"),
    });
  });

  it("moves the records from before the split to their days, each once, oldest first, a batch sent twice stored once", async () => {
    const organization = "moving-org";
    const now = Date.now();
    const own = ownAuditStore(workerEnv.AUDIT_LOG, organization);
    // A store from before the split: records of three days, one of them past retention, in the own store.
    const times = [now - 100 * DAY, now - 3 * DAY, now - 3 * DAY + 5, now - DAY, now - 2_000];
    const legacy = recordsAt(organization, times);
    expect(await own.appendBatch(legacy.map((record) => ({ deliveryId: null, record })))).toEqual(
      legacy.map(() => ({ stored: true })),
    );
    // One of them already reached its day's store once (a run that stopped before it deleted its batch here).
    const seqOf = await runInDurableObject(own, (_instance, state) =>
      state.storage.sql
        .exec<{ seq: number; correlation_id: string }>("SELECT seq, correlation_id FROM audit_events")
        .toArray(),
    );
    const sentBefore = seqOf.find((row) => row.correlation_id === legacy[3]!.correlationId)!;
    const dayBefore = dayOfTime(times[3]!);
    expect(
      await dayAuditStore(workerEnv.AUDIT_LOG, organization, dayBefore).appendBatch(
        [{ deliveryId: `moved:${sentBefore.seq}`, record: legacy[3]! }],
        dayBefore,
      ),
    ).toEqual([{ stored: true }]);

    // The own store starts again (as after a deployment of this version), and its alarm moves them.
    await evictDurableObject(own);
    expect((await auditTrailIn(workerEnv.AUDIT_LOG)(organization).size(organization)).moving).toBe(true);
    await runDurableObjectAlarm(own);
    await vi.waitFor(async () =>
      expect((await auditTrailIn(workerEnv.AUDIT_LOG)(organization).size(organization)).moving).toBe(false),
    );
    expect(await held(own)).toMatchObject({ records: 0 });
    const kept = [4, 3, 2, 1].map((index) => legacy[index]!.target);
    expect(await everyPage(organization, 2)).toEqual(kept);
    expect((await own.trailIndex(organization)).days).toEqual([
      ...new Set([times[4]!, times[3]!, times[1]!].map(dayOfTime)),
    ]);
    expect((await held(dayAuditStore(workerEnv.AUDIT_LOG, organization, dayBefore))).records).toBe(1);
  });

  it("removes a day's store once retention deleted its last record, and keeps a day that still holds one", async () => {
    const organization = "expiring-days-org";
    const now = Date.now();
    const trail = auditTrailIn(workerEnv.AUDIT_LOG)(organization);
    const [expired, kept] = recordsAt(organization, [now - 100 * DAY, now - 2 * DAY]);
    await appendOne(trail, expired!);
    await appendOne(trail, kept!);
    const expiredDay = dayOfTime(now - 100 * DAY);
    const keptDay = dayOfTime(now - 2 * DAY);
    const own = ownAuditStore(workerEnv.AUDIT_LOG, organization);
    expect((await own.trailIndex(organization)).days).toEqual([keptDay, expiredDay]);

    const expiredStore = dayAuditStore(workerEnv.AUDIT_LOG, organization, expiredDay);
    expect(await runDurableObjectAlarm(expiredStore)).toBe(true);
    expect(await held(expiredStore)).toEqual({ records: null, days: null });
    expect((await own.trailIndex(organization)).days).toEqual([keptDay]);

    const keptStore = dayAuditStore(workerEnv.AUDIT_LOG, organization, keptDay);
    expect(await runDurableObjectAlarm(keptStore)).toBe(true);
    expect((await held(keptStore)).records).toBe(1);
    const next = await runInDurableObject(keptStore, (_instance, state) => state.storage.getAlarm());
    expect(next).toBeGreaterThan(now + 80 * DAY);
    expect((await trail.query(organization, { limit: 10 })).events.map((event) => event.correlationId)).toEqual([
      kept!.correlationId,
    ]);
  });

  it("is summed up for its readers: days, bytes on disk as each day told, retention; in REST and the console", async () => {
    const organization = "acme";
    const now = Date.now();
    const times = [now - 3 * DAY, now - DAY, now];
    const trail = auditTrailIn(workerEnv.AUDIT_LOG)(organization);
    for (const record of recordsAt(organization, times))
      expect(await appendOne(trail, record)).toEqual({ stored: true });
    const days = times.map(dayOfTime);
    const own = ownAuditStore(workerEnv.AUDIT_LOG, organization);
    const sizeOf = (stub: DurableObjectStub) =>
      runInDurableObject(stub, (_instance, state) => state.storage.sql.databaseSize);
    const told = () =>
      runInDurableObject(own, (_instance, state) =>
        state.storage.sql.exec<{ day: string; bytes: number }>("SELECT day, bytes FROM audit_shards").toArray(),
      );
    // Each day's store told its size after its first record (not awaited by the writer): wait until all three did.
    const daySizes = await Promise.all(
      days.map((day) => sizeOf(dayAuditStore(workerEnv.AUDIT_LOG, organization, day))),
    );
    await vi.waitFor(async () => {
      const rows = await told();
      expect(days.map((day) => rows.find((row) => row.day === day)?.bytes)).toEqual(daySizes);
    });

    const reader = restPrincipal("ana", "audit.read", { organizationId: organization });
    const answer = await callJson(reader, "GET", "/audit/trail");
    expect(answer.status).toBe(200);
    const ownSize = await sizeOf(own);
    expect(answer.body).toEqual({
      organizationId: organization,
      trail: {
        days: 3,
        oldestDay: days[0],
        newestDay: days[2],
        bytes: daySizes.reduce((sum, size) => sum + size, 0) + ownSize,
        retentionDays: 90,
        moving: false,
      },
    });
    // The summary is part of the audit trail: audit.read is required.
    const without = restPrincipal("ana", "contracts.read", { organizationId: organization });
    expect((await callJson(without, "GET", "/audit/trail", undefined, undefined, { unchecked: "403" })).status).toBe(
      403,
    );

    const page = (await (await signedIn("ana")).get("/admin/audit")).text;
    expect(page).toContain(`Kept: records of 3 days (${days[0]} to ${days[2]}, UTC)`);
    expect(page).toContain("Records are deleted 90 days after they were written");
  });

  it("of a deleted organization is purged a bounded number of day stores per directory alarm", async () => {
    const id = "many-audit-days";
    expect((await operator("POST", "/organizations", { id, name: "Many audit days" })).status).toBe(201);
    const now = Date.now();
    const times = Array.from({ length: DAY_STORES_PER_PURGE + 2 }, (_, n) => now - n * DAY);
    const trail = auditTrailIn(workerEnv.AUDIT_LOG)(id);
    const results = await trail.appendBatch(recordsAt(id, times).map((record) => ({ deliveryId: null, record })));
    expect(results.every((result) => result.stored)).toBe(true);
    const own = ownAuditStore(workerEnv.AUDIT_LOG, id);
    expect((await own.trailIndex(id)).days).toHaveLength(times.length);

    const archive = await SELF.fetch(`${BASE}/operator/v1/organizations/${id}/export`, {
      headers: { Authorization: `Bearer ${OPERATOR_KEY}` },
    });
    const exported = JSON.parse(await archive.text()) as { auditEvents: Array<{ target: string }> };
    expect(exported.auditEvents.filter((event) => event.target.startsWith("tool_"))).toHaveLength(times.length);
    expect((await operator("PUT", "/caps", { deletionGraceDays: 0 })).status).toBe(200);
    try {
      // The deletion's own call purges the first part; the organization stays deleting until the rest is gone.
      expect((await operator("DELETE", `/organizations/${id}`)).status).toBe(202);
      expect((await own.trailIndex(id)).days).toHaveLength(times.length - DAY_STORES_PER_PURGE);
      expect((await operator("GET", `/organizations/${id}`)).body.organization.status).toBe("deleting");

      const directory = workerEnv.DIRECTORY.get(workerEnv.DIRECTORY.idFromName("directory"));
      expect(await runDurableObjectAlarm(directory)).toBe(true);
      expect((await operator("GET", `/organizations/${id}`)).status).toBe(404);
      expect(await held(own)).toEqual({ records: null, days: null });
      for (const time of [times[0]!, times[times.length - 1]!])
        expect(await held(dayAuditStore(workerEnv.AUDIT_LOG, id, dayOfTime(time)))).toEqual({
          records: null,
          days: null,
        });
    } finally {
      expect((await operator("PUT", "/caps", {})).status).toBe(200);
    }
  }, 90_000); // 52 day stores written, exported and purged while the suite runs two files at once
});
