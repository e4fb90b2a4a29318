/**
 * The audit store and sink: retention cleanup by alarm, one organization per store, scrubbing, and what
 * happens when storing fails (the caller still gets its result; the full record is logged stored:false).
 * Also the REST router's order: a rate-limited call never reaches the route handler.
 */
import { env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApiHandler, type ApiRoute } from "../../../src/api/router";
import { getAuditPolicy, loadAuditPolicy, retentionMsFor } from "../../../src/audit/policy";
import type { AuditRecord } from "../../../src/audit/record";
import { appendOne, auditRecord } from "../helpers";
import { scrubText } from "../../../src/audit/scrub";
import { auditDrainDelayOf, DEFAULT_AUDIT_DRAIN_DELAY_SECONDS } from "../../../src/audit/drain-delay";
import { auditLogLinesOf } from "../../../src/audit/log-lines";
import { auditSinkFor, StoringAuditSink } from "../../../src/audit/sink";
import { auditTrailIn, dayAuditStore, ownAuditStore } from "../../../src/audit/trail";
import { dayOfTime } from "../../../src/audit/trail-days";
import { MIN_CLEANUP_SPACING_MS } from "../../../src/audit/store";
import type { Principal } from "../../../src/core/principal";
import { runToolCall } from "../../../src/mcp/pipeline";
import { getCatalog } from "../../../src/mcp/deployment-catalog";
import { unlimited } from "../../../src/ratelimit/hook";
import { rateLimiterFor } from "../../../src/ratelimit/limiter";
import { getRateLimitPolicy, rateLimitFileSchema } from "../../../src/ratelimit/policy";
import { bundledPolicyFiles } from "../../../src/policy/files";

const DAY = 24 * 60 * 60 * 1000;

function record(organizationId: string, time: number, overrides: Partial<AuditRecord> = {}): AuditRecord {
  return auditRecord(organizationId, { time: new Date(time).toISOString(), ...overrides });
}

function capturedAuditLines(spy: { mock: { calls: unknown[][] } }): Array<Record<string, unknown>> {
  return spy.mock.calls
    .map((call) => String(call[0]))
    .filter((line) => line.includes('"event":"audit"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("audit store", () => {
  it("deletes records past the retention period when its alarm runs", async () => {
    const organization = "retention-org";
    const retention = retentionMsFor(getAuditPolicy(), organization);
    expect(retention).toBe(90 * DAY);
    const trail = auditTrailIn(env.AUDIT_LOG)(organization);
    const now = Date.now();
    const expired = [record(organization, now - 120 * DAY), record(organization, now - 91 * DAY)];
    const kept = [record(organization, now - 89 * DAY), record(organization, now - 1000)];
    for (const r of [...expired, ...kept]) await appendOne(trail, r);

    // Each day's store has its own cleanup; run each one's alarm.
    for (const r of [...expired, ...kept]) {
      const store = dayAuditStore(env.AUDIT_LOG, organization, dayOfTime(Date.parse(r.time)));
      expect(await runInDurableObject(store, (_instance, state) => state.storage.getAlarm())).not.toBeNull();
      expect(await runDurableObjectAlarm(store)).toBe(true);
    }

    const remaining = (await trail.query(organization, { limit: 100 })).events.map((e) => e.correlationId);
    expect(remaining.sort()).toEqual(kept.map((r) => r.correlationId).sort());
    // The next cleanup is set for when the oldest remaining record expires (at least an hour away).
    const oldestKept = dayAuditStore(env.AUDIT_LOG, organization, dayOfTime(Date.parse(kept[0]!.time)));
    const next = await runInDurableObject(oldestKept, (_instance, state) => state.storage.getAlarm());
    expect(next).toBeGreaterThanOrEqual(now + MIN_CLEANUP_SPACING_MS);
    expect(next).toBeGreaterThanOrEqual(Date.parse(kept[0]!.time) + retention);
  });

  it("takes the retention from policies/audit.json, per organization when overridden", () => {
    const policy = loadAuditPolicy({
      ...bundledPolicyFiles,
      "audit.json": { retentionDays: 30, organizations: { acme: { retentionDays: 400 } } },
    });
    expect(retentionMsFor(policy, "acme")).toBe(400 * DAY);
    expect(retentionMsFor(policy, "globex")).toBe(30 * DAY);
    expect(() => loadAuditPolicy({ ...bundledPolicyFiles, "audit.json": { retentionDays: 0 } })).toThrow(
      /policies\/audit\.json: retentionDays/,
    );
  });

  it("belongs to one organization: refuses another's records and answers another's queries with nothing", async () => {
    const store = ownAuditStore(env.AUDIT_LOG, "owner-org");
    await appendOne(store, record("owner-org", Date.now()));
    expect(await appendOne(store, record("intruder-org", Date.now()))).toEqual({
      stored: false,
      problem: "this audit store belongs to another organization",
    });
    expect(await store.query("intruder-org", { limit: 10 })).toEqual({ events: [], next: null });
    expect((await store.query("owner-org", { limit: 10 })).events).toHaveLength(1);
  });

  it("filters by time range, user, client, target, kind and outcome, newest first, in pages", async () => {
    const organization = "filter-org";
    const store = ownAuditStore(env.AUDIT_LOG, organization);
    const base = Date.UTC(2026, 5, 1);
    const records = [
      record(organization, base, { userId: "ana", target: "whoami" }),
      record(organization, base + 1000, { userId: "dev", target: "whoami", outcome: "rate-limited" }),
      record(organization, base + 2000, { userId: "ana", clientId: "client-2", target: "audit_events_list" }),
      record(organization, base + 3000, {
        userId: "ana",
        kind: "route",
        target: "GET /api/v1/whoami",
        outcome: "invalid-input",
      }),
      record(organization, base + 4000, { userId: "ana", kind: "oauth", target: "grant" }),
    ];
    for (const r of records) await appendOne(store, r);
    const ids = async (query: Parameters<typeof store.query>[1]) =>
      (await store.query(organization, query)).events.map((e) =>
        records.findIndex((r) => r.correlationId === e.correlationId),
      );

    expect(await ids({ limit: 10 })).toEqual([4, 3, 2, 1, 0]);
    expect(await ids({ limit: 10, from: base + 1000, to: base + 3000 })).toEqual([2, 1]);
    expect(await ids({ limit: 10, userId: "dev" })).toEqual([1]);
    expect(await ids({ limit: 10, clientId: "client-2" })).toEqual([2]);
    expect(await ids({ limit: 10, target: "whoami" })).toEqual([1, 0]);
    expect(await ids({ limit: 10, kind: "route" })).toEqual([3]);
    expect(await ids({ limit: 10, outcome: "ok", userId: "ana" })).toEqual([4, 2, 0]);

    const first = await store.query(organization, { limit: 2 });
    expect(first.next).not.toBeNull();
    const second = await store.query(organization, { limit: 2, after: first.next! });
    const third = await store.query(organization, { limit: 2, after: second.next! });
    expect([...first.events, ...second.events, ...third.events].map((e) => e.correlationId)).toEqual(
      [...records].reverse().map((r) => r.correlationId),
    );
    expect(third.next).toBeNull();
  });

  it("refuses a malformed record rather than storing part of it", async () => {
    const store = ownAuditStore(env.AUDIT_LOG, "strict-org");
    expect(await appendOne(store, { ...record("strict-org", Date.now()), outcome: "fine" as never })).toMatchObject({
      stored: false,
      problem: expect.stringContaining("outcome"),
    });
    expect(await appendOne(store, { ...record("strict-org", Date.now()), time: "yesterday" })).toMatchObject({
      stored: false,
      problem: expect.stringContaining("time"),
    });
    expect((await store.query("strict-org", { limit: 10 })).events).toEqual([]);
  });

  it("stores a batch in order, answers each delivery in its place, and stores a delivery id once", async () => {
    const store = ownAuditStore(env.AUDIT_LOG, "batch-store-org");
    const now = Date.now();
    const good = Array.from({ length: 120 }, (_, index) =>
      record("batch-store-org", now + index, { target: `tool_${index}`, reason: `r'"${index}` }),
    );
    const deliveries = [
      ...good.slice(0, 60).map((r, index) => ({ deliveryId: `owner:${index}`, record: r })),
      { deliveryId: "owner:bad", record: { ...record("batch-store-org", now), outcome: "fine" as never } },
      { deliveryId: "owner:other", record: record("someone-else", now) },
      ...good.slice(60).map((r, index) => ({ deliveryId: index % 2 ? null : `owner:${60 + index}`, record: r })),
    ];
    const results = await store.appendBatch(deliveries);
    expect(results).toHaveLength(122);
    expect(results[60]).toMatchObject({ stored: false, problem: expect.stringContaining("malformed record: outcome") });
    expect(results[61]).toMatchObject({ stored: false, problem: "this audit store belongs to another organization" });
    expect(results.filter((result) => result.stored)).toHaveLength(120);
    // The same deliveries again (an outbox drained twice): answered as stored, stored once.
    expect((await store.appendBatch(deliveries.slice(0, 60))).every((result) => result.stored)).toBe(true);
    const stored = (await store.query("batch-store-org", { limit: 500 })).events;
    expect(stored).toHaveLength(120);
    expect(stored.map((event) => event.target).reverse()).toEqual(good.map((r) => r.target));
    expect(stored.find((event) => event.target === "tool_7")).toEqual(good[7]);
  });
});

describe("audit sink", () => {
  it("stores each record once, scrubbed, and by default prints no line for a stored record", async () => {
    const log = vi.spyOn(console, "log");
    const r = record("sink-org", Date.now(), { reason: "Authorization: Bearer abc.def.ghi" });
    await auditSinkFor(env).record(r);
    expect(capturedAuditLines(log).filter((line) => line.correlationId === r.correlationId)).toEqual([]);
    const stored = (
      await auditTrailIn(env.AUDIT_LOG)("sink-org").query("sink-org", { correlationId: r.correlationId, limit: 5 })
    ).events;
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ reason: "Authorization: [redacted]" });
  });

  it("also prints each stored record once with stored: true when AUDIT_LOG_LINES is all", async () => {
    const log = vi.spyOn(console, "log");
    const r = record("sink-org", Date.now(), { reason: "Authorization: Bearer abc.def.ghi" });
    await auditSinkFor({ ...env, AUDIT_LOG_LINES: "all" }).record(r);
    const lines = capturedAuditLines(log).filter((line) => line.correlationId === r.correlationId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ stored: true, reason: "Authorization: [redacted]" });
    expect(
      (await auditTrailIn(env.AUDIT_LOG)("sink-org").query("sink-org", { correlationId: r.correlationId, limit: 5 }))
        .events,
    ).toHaveLength(1);
  });

  it("reads AUDIT_DRAIN_DELAY_SECONDS: 5 by default, whole seconds from 0 to 60, anything else named in a warning", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect(auditDrainDelayOf({})).toBe(DEFAULT_AUDIT_DRAIN_DELAY_SECONDS);
    expect(DEFAULT_AUDIT_DRAIN_DELAY_SECONDS).toBe(5);
    expect(auditDrainDelayOf({ AUDIT_DRAIN_DELAY_SECONDS: "0" })).toBe(0);
    expect(auditDrainDelayOf({ AUDIT_DRAIN_DELAY_SECONDS: " 60 " })).toBe(60);
    for (const bad of ["61", "-1", "1.5", "soon"])
      expect(auditDrainDelayOf({ AUDIT_DRAIN_DELAY_SECONDS: bad })).toBe(5);
    const printed = warn.mock.calls.map((call) => String(call[0])).join("\n");
    expect(printed).toContain("AUDIT_DRAIN_DELAY_SECONDS is not a whole number of seconds from 0 to 60");
    expect(printed).toContain("soon");
  });

  it("reads AUDIT_LOG_LINES: failures by default, all on request, and an unknown value named in a warning", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect(auditLogLinesOf({})).toBe("failures");
    expect(auditLogLinesOf({ AUDIT_LOG_LINES: " " })).toBe("failures");
    expect(auditLogLinesOf({ AUDIT_LOG_LINES: "all" })).toBe("all");
    expect(auditLogLinesOf({ AUDIT_LOG_LINES: "everything" })).toBe("failures");
    const printed = warn.mock.calls.map((call) => String(call[0])).join("\n");
    expect(printed).toContain("AUDIT_LOG_LINES has an unknown value");
    expect(printed).toContain("everything");
    expect(printed).toContain("failures, all");
  });

  it("logs the full record with stored: false when storing fails, and the tool caller still gets its result", async () => {
    const log = vi.spyOn(console, "log");
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const failing = new StoringAuditSink(() => ({
      appendBatch: async (): Promise<never> => {
        throw new Error("Durable Object storage is unavailable");
      },
    }));
    const principal: Principal = {
      organizationId: "acme",
      userId: "ana",
      clientId: "client-x",
      role: "admin",
      scopes: ["audit.read"],
    };
    const tool = getCatalog().tools.get("audit_events_list")!;
    const result = await runToolCall(
      tool,
      { limit: 1 },
      {
        principal,
        env,
        session: { get: async () => undefined, put: async () => undefined },
        signal: new AbortController().signal,
        progress: async () => undefined,
      },
      { audit: failing, rateLimiter: unlimited },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ organizationId: "acme" });

    const lines = capturedAuditLines(log).filter((line) => line.correlationId === result._meta.correlationId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      stored: false,
      organizationId: "acme",
      userId: "ana",
      clientId: "client-x",
      kind: "tool",
      target: "audit_events_list",
      outcome: "ok",
      argumentsDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      durationMs: expect.any(Number),
      time: expect.any(String),
      reason: "",
    });
  });

  it("redacts credentials from free text but keeps names and correlation ids", () => {
    expect(scrubText("Bearer abc123")).toBe("[redacted]");
    expect(scrubText("token acme--ana:grant12345:secretsecretsecret99 used")).toBe("token [redacted] used");
    expect(scrubText("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig")).toBe("jwt [redacted]");
    expect(scrubText("client_secret=s3cr3t&x=1")).toBe("[redacted]&x=1");
    expect(scrubText("key ci_8fJ2kLm9Qx7Rt4Vb6Nw1Zc3Yd5Pa0Se2")).toBe("key [redacted]");
    expect(scrubText("correlation id 509e5ec2-81f4-4d81-a0e1-f7048db2c468")).toBe(
      "correlation id 509e5ec2-81f4-4d81-a0e1-f7048db2c468",
    );
    expect(scrubText('Unrecognized key: "audit_events_list_for_a_long_tool_name"')).toBe(
      'Unrecognized key: "audit_events_list_for_a_long_tool_name"',
    );
  });
});

describe("REST router", () => {
  const principalContext = (clientId: string) =>
    ({
      props: { organizationId: "acme", userId: "ana", role: "admin", name: "Ana" },
      auth: { scope: ["contracts.read"], clientId },
      waitUntil: () => undefined,
      passThroughOnException: () => undefined,
    }) as unknown as ExecutionContext;

  it("refuses a rate-limited call with 429 before the route handler runs", async () => {
    let handled = 0;
    const route: ApiRoute = {
      method: "POST",
      path: "/api/v1/echo",
      requiredScopes: [],
      async handle() {
        handled++;
        return Response.json({ handled });
      },
    };
    const policy = rateLimitFileSchema.parse({ ...getRateLimitPolicy(), rest: { limit: 2, windowSeconds: 60 } });
    const handler = createApiHandler([route], { rateLimiter: (e) => rateLimiterFor(e, policy) });
    const ctx = principalContext(`client-${crypto.randomUUID()}`);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await handler.fetch(new Request("http://localhost:8787/api/v1/echo", { method: "POST" }), env, ctx)).status,
      );
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(handled).toBe(2);
  });

  it("still answers when the audit store fails, logging the record with stored: false", async () => {
    const log = vi.spyOn(console, "log");
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const route: ApiRoute = {
      method: "GET",
      path: "/api/v1/ping",
      requiredScopes: [],
      handle: async () => Response.json({ pong: true }),
    };
    const failing = () =>
      new StoringAuditSink(() => ({
        appendBatch: async (): Promise<never> => {
          throw new Error("storage down");
        },
      }));
    const handler = createApiHandler([route], { audit: failing });
    const response = await handler.fetch(
      new Request("http://localhost:8787/api/v1/ping?x=1"),
      env,
      principalContext("client-ping"),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ pong: true });
    const lines = capturedAuditLines(log).filter(
      (line) => line.correlationId === response.headers.get("x-correlation-id"),
    );
    expect(lines).toMatchObject([
      { stored: false, kind: "route", target: "GET /api/v1/ping", outcome: "ok", clientId: "client-ping" },
    ]);
  });
});

describe("audit filters that match few records", () => {
  const planOf = (sql: SqlStorage, where: string, ...values: SqlStorageValue[]) =>
    sql
      .exec<{ detail: string }>(
        `EXPLAIN QUERY PLAN SELECT * FROM audit_events WHERE ${where} ORDER BY time_ms DESC, seq DESC LIMIT 51`,
        ...values,
      )
      .toArray()
      .map((row) => row.detail)
      .join("; ");

  it("read only the matching records, newest first, through the filter's own index (no scan, no sort)", async () => {
    const store = ownAuditStore(env.AUDIT_LOG, "plan-org");
    await appendOne(store, auditRecord("plan-org"));
    await runInDurableObject(store, (_instance, state) => {
      for (const [column, value] of [
        ["user_id", "ana"],
        ["client_id", "rare-client"],
        ["target", "orders_search"],
        ["outcome", "rate-limited"],
      ] as const) {
        const plan = planOf(state.storage.sql, `${column} = ?`, value);
        expect(plan, column).toContain(`USING INDEX audit_events_by_${column}`);
        expect(plan, column).not.toMatch(/SCAN audit_events(?! USING)|TEMP B-TREE/);
      }
    });
  });

  it("gives a store made before the indexes its indexes when it next starts, its records kept", async () => {
    const store = ownAuditStore(env.AUDIT_LOG, "upgrade-org");
    const record = auditRecord("upgrade-org", { outcome: "rate-limited" });
    await appendOne(store, record);
    await runInDurableObject(store, (_instance, state) => {
      for (const column of ["user_id", "client_id", "target", "outcome"])
        state.storage.sql.exec(`DROP INDEX audit_events_by_${column}`);
    });
    await evictDurableObject(store);
    // Started again, it holds a record from before the split, which its alarm moves to its day: read through the trail.
    await runDurableObjectAlarm(store);
    const trail = auditTrailIn(env.AUDIT_LOG)("upgrade-org");
    await vi.waitFor(async () => expect((await trail.size("upgrade-org")).moving).toBe(false));
    const page = await trail.query("upgrade-org", { outcome: "rate-limited", limit: 10 });
    expect(page.events.map((event) => event.correlationId)).toEqual([record.correlationId]);
    await runInDurableObject(store, (_instance, state) => {
      const indexes = state.storage.sql
        .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit_events'`)
        .toArray()
        .map((row) => row.name);
      expect(indexes).toEqual(
        expect.arrayContaining([
          "audit_events_by_outcome",
          "audit_events_by_client_id",
          "audit_events_by_user_id",
          "audit_events_by_target",
        ]),
      );
    });
  });
});
