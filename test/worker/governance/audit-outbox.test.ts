/**
 * The session lane's audit outbox (src/audit/outbox.ts, drained by src/mcp/session/agent.ts): a record is kept in the
 * session object's own storage until the audit store has it, so it survives an eviction mid-batch and is stored
 * exactly once; when the store fails it is logged in full; a real session call schedules the drain as an alarm of
 * the session object (not as work left pending after the answer) and its record reaches the store.
 */
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AuditOutbox, type AuditBatchLookup } from "../../../src/audit/outbox";
import type { AuditRecord } from "../../../src/audit/record";
import { auditTrailIn } from "../../../src/audit/trail";
import type { ArbiterMcpAgent } from "../../../src/mcp/session/agent";
import { auditRecord, initializeSession, obtainTokens, rpc, sessionObjectId } from "../helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const ORG = "outbox-org";

const record = (overrides: Partial<AuditRecord> = {}) => auditRecord(ORG, overrides);

const storedIn = async (organizationId: string, correlationId: string) =>
  (await auditTrailIn(env.AUDIT_LOG)(organizationId).query(organizationId, { correlationId, limit: 10 })).events;
const stored = (correlationId: string) => storedIn(ORG, correlationId);
const noDrain = async () => undefined;
/**
 * Runs `body` with another drain delay than the pool's 1 s: a burst's checks before the drain must not race it on
 * a loaded machine. The runtime's env is one object for the whole isolate, so the value is put back afterwards.
 */
async function withDrainDelay(seconds: number, body: () => Promise<void>): Promise<void> {
  const vars = env as { AUDIT_DRAIN_DELAY_SECONDS?: string };
  const before = vars.AUDIT_DRAIN_DELAY_SECONDS;
  vars.AUDIT_DRAIN_DELAY_SECONDS = String(seconds);
  try {
    await body();
  } finally {
    vars.AUDIT_DRAIN_DELAY_SECONDS = before;
  }
}
/** The session object itself (the binding is typed by its RPC, runInDurableObject hands over the instance). */
const sessionObject = (name: string) =>
  env.MCP_OBJECT.get(env.MCP_OBJECT.idFromName(name)) as unknown as DurableObjectStub<ArbiterMcpAgent>;

describe("audit outbox of a session object", () => {
  it("keeps the records of a batch interrupted by an eviction and stores each exactly once in the next instance", async () => {
    const stub = sessionObject("streamable-http:outbox-eviction");
    const records = [
      record(),
      record({ target: "orders_search" }),
      record({ outcome: "invalid-input", reason: "bad status" }),
    ];
    const real = auditTrailIn(env.AUDIT_LOG);
    // The store commits the batch, then the object is evicted before the store's answer arrives.
    const storesThenHangs: AuditBatchLookup = (organizationId) => ({
      async appendBatch(deliveries) {
        await real(organizationId).appendBatch(deliveries);
        return new Promise(() => undefined);
      },
    });
    await runInDurableObject(stub, async (_instance: ArbiterMcpAgent, state) => {
      const outbox = new AuditOutbox(state.storage.sql, state.id.toString(), noDrain);
      for (const item of records) await outbox.add(item);
      void outbox.drain(storesThenHangs);
    });
    // The store has them (however long that takes on a loaded machine), and the outbox still lists them all.
    await vi.waitFor(
      async () => {
        for (const item of records) expect(await stored(item.correlationId)).toHaveLength(1);
      },
      { timeout: 10_000, interval: 50 },
    );
    await runInDurableObject(stub, (_instance: ArbiterMcpAgent, state) => {
      expect(new AuditOutbox(state.storage.sql, state.id.toString(), noDrain).pending()).toBe(3);
    });
    await evictDurableObject(stub);

    // The next instance runs what the alarm runs: the rows are still there, and the store takes each once.
    await runInDurableObject(stub, async (instance: ArbiterMcpAgent, state) => {
      expect(new AuditOutbox(state.storage.sql, state.id.toString(), noDrain).pending()).toBe(3);
      await instance.drainAuditOutbox();
      expect(new AuditOutbox(state.storage.sql, state.id.toString(), noDrain).pending()).toBe(0);
    });
    for (const item of records) {
      const events = await stored(item.correlationId);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ target: item.target, outcome: item.outcome });
    }
  });

  it("logs every record in full (stored: false) when the store cannot be reached, and empties the outbox", async () => {
    const log = vi.spyOn(console, "log");
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const stub = sessionObject("streamable-http:outbox-failure");
    const records = [record(), record({ target: "orders_get_by_id" })];
    const down: AuditBatchLookup = () => ({
      appendBatch: async () => {
        throw new Error("Durable Object storage is unavailable");
      },
    });
    await runInDurableObject(stub, async (_instance: ArbiterMcpAgent, state) => {
      const outbox = new AuditOutbox(state.storage.sql, state.id.toString(), noDrain);
      for (const item of records) await outbox.add(item);
      expect(await outbox.drain(down)).toEqual({ stored: 0, logged: 2 });
      expect(outbox.pending()).toBe(0);
    });
    for (const item of records) {
      const lines = log.mock.calls
        .map((call) => String(call[0]))
        .filter((line) => line.includes('"event":"audit"') && line.includes(item.correlationId));
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toEqual({ level: "info", event: "audit", ...item, stored: false });
      expect(await stored(item.correlationId)).toHaveLength(0);
    }
  });

  it("drains a real session call's record through an alarm of the session object", async () => {
    const { tokens, client } = await obtainTokens({ user: "ana", scope: "orders.read" });
    const session = await initializeSession(tokens.access_token);
    const reply = await rpc(tokens.access_token, session, "tools/call", { name: "whoami", arguments: {} }, 3);
    const correlationId = reply.result._meta.correlationId as string;
    let events: AuditRecord[] = [];
    for (let attempt = 0; attempt < 100 && events.length === 0; attempt++) {
      events = (await auditTrailIn(env.AUDIT_LOG)("acme").query("acme", { correlationId, limit: 10 })).events;
      if (events.length === 0) await new Promise((done) => setTimeout(done, 20));
    }
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ target: "whoami", outcome: "ok", clientId: client.client_id });
  });

  it("drains a burst of calls in one delayed batch: one drain scheduled for all of them, the records kept until it runs", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: "orders.read" });
    const session = await initializeSession(tokens.access_token);
    const stub = sessionObject(`streamable-http:${sessionObjectId(session)}`);
    const ids: string[] = [];
    await withDrainDelay(60, async () => {
      for (let call = 0; call < 3; call++) {
        const reply = await rpc(
          tokens.access_token,
          session,
          "tools/call",
          { name: "whoami", arguments: {} },
          10 + call,
        );
        ids.push(reply.result._meta.correlationId as string);
      }
      await runInDurableObject(stub, async (instance: ArbiterMcpAgent, state) => {
        const drains = instance.getSchedules().filter((schedule) => schedule.callback === "drainAuditOutbox");
        expect(drains).toHaveLength(1);
        // Due a minute after the first record, not at once.
        expect(drains[0]!.time * 1000).toBeGreaterThan(Date.now() + 30_000);
        expect(new AuditOutbox(state.storage.sql, state.id.toString(), noDrain).pending()).toBe(3);
      });
      for (const correlationId of ids) expect(await storedIn("acme", correlationId)).toHaveLength(0);
    });
    // The scheduled drain, run now as its alarm would (and taken off the schedule): all three records in one go.
    await runInDurableObject(stub, async (instance: ArbiterMcpAgent, state) => {
      const [drain] = instance.getSchedules().filter((schedule) => schedule.callback === "drainAuditOutbox");
      await instance.drainAuditOutbox();
      await instance.cancelSchedule(drain!.id);
      expect(new AuditOutbox(state.storage.sql, state.id.toString(), noDrain).pending()).toBe(0);
    });
    for (const correlationId of ids) expect(await storedIn("acme", correlationId)).toHaveLength(1);
  });

  it("gives a record added once a drain has started a drain of its own (a running drain keeps its row until it ends)", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: "orders.read" });
    const session = await initializeSession(tokens.access_token);
    const stub = sessionObject(`streamable-http:${sessionObjectId(session)}`);
    // The first record's drain is due in a minute, so within this test only a drain of the second record's own
    // can store that record.
    let first = "";
    await withDrainDelay(60, async () => {
      await rpc(tokens.access_token, session, "tools/call", { name: "whoami", arguments: {} }, 20);
      // That drain starts (here directly; agents keeps the scheduled row of a drain it runs until the drain ended).
      await runInDurableObject(stub, async (instance: ArbiterMcpAgent) => {
        const drains = instance.getSchedules().filter((schedule) => schedule.callback === "drainAuditOutbox");
        expect(drains).toHaveLength(1);
        first = drains[0]!.id;
        await instance.drainAuditOutbox();
      });
    });
    const reply = await rpc(tokens.access_token, session, "tools/call", { name: "whoami", arguments: {} }, 21);
    let events: AuditRecord[] = [];
    for (let attempt = 0; attempt < 250 && events.length === 0; attempt++) {
      events = await storedIn("acme", reply.result._meta.correlationId as string);
      if (events.length === 0) await new Promise((done) => setTimeout(done, 20));
    }
    expect(events).toHaveLength(1);
    await runInDurableObject(stub, async (instance: ArbiterMcpAgent) => {
      await instance.cancelSchedule(first);
    });
  });

  it("prints a stored record as a log line only with AUDIT_LOG_LINES=all", async () => {
    const log = vi.spyOn(console, "log");
    const quiet = record();
    const printed = record();
    await runInDurableObject(
      sessionObject("streamable-http:outbox-lines"),
      async (_instance: ArbiterMcpAgent, state) => {
        const byDefault = new AuditOutbox(state.storage.sql, state.id.toString(), noDrain);
        await byDefault.add(quiet);
        expect(await byDefault.drain(auditTrailIn(env.AUDIT_LOG))).toEqual({ stored: 1, logged: 0 });
        const all = new AuditOutbox(state.storage.sql, state.id.toString(), noDrain, "all");
        await all.add(printed);
        expect(await all.drain(auditTrailIn(env.AUDIT_LOG))).toEqual({ stored: 1, logged: 0 });
      },
    );
    const lines = (correlationId: string) =>
      log.mock.calls
        .map((call) => String(call[0]))
        .filter((line) => line.includes('"event":"audit"') && line.includes(correlationId));
    expect(lines(quiet.correlationId)).toEqual([]);
    expect(lines(printed.correlationId).map((line) => JSON.parse(line))).toEqual([
      { level: "info", event: "audit", ...printed, stored: true },
    ]);
    expect(await stored(quiet.correlationId)).toHaveLength(1);
    expect(await stored(printed.correlationId)).toHaveLength(1);
  });
});
