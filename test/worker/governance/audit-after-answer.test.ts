/**
 * MCP tool calls answer before their audit record is stored, without giving up a guarantee: the record is built
 * and sent to the store before the answer (exactly one per call), the write finishes after it, and when the write
 * fails the full record still goes to the log (stored: false). A sink without `afterAnswer` (/chat, the listen
 * hub, the 2025-11-25 session lane) still waits: src/mcp/deps.ts wires each lane; the last two tests follow a real
 * call of each lane through the Worker to its stored record.
 */
import { env, SELF } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuditRecord } from "../../../src/audit/record";
import { BATCH_WINDOW_MS, IsolateAuditBatcher } from "../../../src/audit/isolate-batch";
import type { AuditBatchLookup, AuditDelivery } from "../../../src/audit/outbox";
import { auditStoresIn, StoringAuditSink, type AuditAppender } from "../../../src/audit/sink";
import type { CallContext } from "../../../src/mcp/context";
import type { Principal } from "../../../src/core/principal";
import { runToolCall } from "../../../src/mcp/pipeline";
import { getCatalog } from "../../../src/mcp/registry";
import { unlimited } from "../../../src/ratelimit/hook";
import { auditRecord, initializeSession, MCP_URL, obtainTokens, rpc } from "../helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const principal: Principal = { organizationId: "deferred-org", userId: "ana", clientId: "client-deferred", role: "admin", scopes: [] };
const context = (): Omit<CallContext, "correlationId"> => ({
  principal,
  env,
  session: { get: async () => undefined, put: async () => undefined },
  signal: new AbortController().signal,
  progress: async () => undefined,
});
const whoami = () => getCatalog().tools.get("whoami")!;

/** The real audit store, with each append held until `release()`. */
function heldStore() {
  let release!: () => void;
  const gate = new Promise<void>((done) => (release = done));
  let appends = 0;
  const real = auditStoresIn(env.AUDIT_LOG);
  const lookup = (organizationId: string): AuditAppender => ({
    async append(record: AuditRecord) {
      appends++;
      await gate;
      return real(organizationId).append(record);
    },
  });
  return { lookup, release, appends: () => appends };
}

/** An `afterAnswer` that keeps the writes, so a test can wait for them as a host would. */
function host() {
  const writes: Promise<void>[] = [];
  return { afterAnswer: (write: Promise<void>) => void writes.push(write), settled: () => Promise.all(writes), count: () => writes.length };
}

const storedIn = async (organizationId: string, correlationId: string) =>
  (await auditStoresIn(env.AUDIT_LOG)(organizationId).query(organizationId, { correlationId, limit: 10 })).events;

/** The stored records of a call answered before its record was stored: polls until the write has landed. */
async function eventuallyStored(organizationId: string, correlationId: string): Promise<AuditRecord[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const events = await storedIn(organizationId, correlationId);
    if (events.length > 0) return events;
    await new Promise((done) => setTimeout(done, 20));
  }
  return storedIn(organizationId, correlationId);
}

function auditLines(spy: { mock: { calls: unknown[][] } }, correlationId: string): Array<Record<string, unknown>> {
  return spy.mock.calls
    .map((call) => String(call[0]))
    .filter((line) => line.includes('"event":"audit"') && line.includes(correlationId))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("audit records stored after the answer", () => {
  it("answers while the store is still writing, then stores exactly one record for the call", async () => {
    const store = heldStore();
    const background = host();
    const answered = runToolCall(whoami(), {}, context(), { audit: new StoringAuditSink(store.lookup, background.afterAnswer), rateLimiter: unlimited });
    const result = await Promise.race([answered, new Promise<"waited">((done) => setTimeout(() => done("waited"), 2_000))]);
    if (result === "waited") throw new Error("the call waited for the audit store instead of answering first");
    expect(result.isError).toBeFalsy();
    const correlationId = result._meta.correlationId as string;
    // Sent before the answer: the store has been asked once, and has stored nothing yet.
    expect(store.appends()).toBe(1);
    expect(background.count()).toBe(1);
    expect(await storedIn(principal.organizationId, correlationId)).toHaveLength(0);

    store.release();
    await background.settled();
    const records = await storedIn(principal.organizationId, correlationId);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ target: "whoami", outcome: "ok", kind: "tool", clientId: "client-deferred" });
    expect(store.appends()).toBe(1);
  });

  it("logs the full record with stored: false when the store fails after the answer", async () => {
    const log = vi.spyOn(console, "log");
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const background = host();
    const failing = new StoringAuditSink(
      () => ({
        append: async (): Promise<never> => {
          throw new Error("Durable Object storage is unavailable");
        },
      }),
      background.afterAnswer,
    );
    const result = await runToolCall(whoami(), {}, context(), { audit: failing, rateLimiter: unlimited });
    expect(result.isError).toBeFalsy();
    const correlationId = result._meta.correlationId as string;
    await background.settled();
    const lines = auditLines(log, correlationId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      stored: false,
      correlationId,
      organizationId: "deferred-org",
      userId: "ana",
      clientId: "client-deferred",
      kind: "tool",
      target: "whoami",
      argumentsDigest: "",
      outcome: "ok",
      durationMs: expect.any(Number),
      time: expect.any(String),
    });
  });

  it("waits for the store when the sink has no afterAnswer", async () => {
    const store = heldStore();
    const answered = runToolCall(whoami(), {}, context(), { audit: new StoringAuditSink(store.lookup), rateLimiter: unlimited });
    const early = await Promise.race([answered.then(() => "answered"), new Promise((done) => setTimeout(() => done("waiting"), 300))]);
    expect(early).toBe("waiting");
    store.release();
    const result = await answered;
    expect(await storedIn(principal.organizationId, result._meta.correlationId as string)).toHaveLength(1);
  });

  it("stores the record of a 2025-11-25 session call (the session object's write outlives its answer)", async () => {
    const { tokens, client } = await obtainTokens({ user: "ana", scope: "orders.read" });
    const session = await initializeSession(tokens.access_token);
    const reply = await rpc(tokens.access_token, session, "tools/call", { name: "whoami", arguments: {} }, 7);
    const correlationId = reply.result._meta.correlationId as string;
    const records = await eventuallyStored("acme", correlationId);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ target: "whoami", outcome: "ok", clientId: client.client_id });
  });

  it("stores the record of a 2026-07-28 stateless call (kept alive with the Worker request's waitUntil)", async () => {
    const { tokens, client } = await obtainTokens({ user: "ana", scope: "orders.read" });
    const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
    const response = await SELF.fetch(MCP_URL, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${tokens.access_token}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "whoami",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {}, _meta: envelope } }),
    });
    expect(response.status).toBe(200);
    const correlationId = ((await response.json()) as { result: { _meta: { correlationId: string } } }).result._meta.correlationId;
    const records = await eventuallyStored("acme", correlationId);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ target: "whoami", outcome: "ok", clientId: client.client_id });
  });
});

/*
 * The stateless lane's audit batches (src/audit/isolate-batch.ts): records of calls an isolate answers at about
 * the same time go to the store in one appendBatch, flushed by the call that opened the batch and kept alive by
 * its afterAnswer; each is stored once, and what the store does not take is logged in full.
 */

/** The real stores, counting appendBatch calls and what each carried. */
function countingStores() {
  const batches: AuditDelivery[][] = [];
  const real = auditStoresIn(env.AUDIT_LOG);
  const lookup: AuditBatchLookup = (organizationId) => ({
    appendBatch(deliveries) {
      batches.push(deliveries);
      return real(organizationId).appendBatch(deliveries);
    },
  });
  return { lookup, batches };
}

describe("isolate audit batches (stateless lane)", () => {
  it("sends the records of calls answered together in one batch per organization, flushed by the call that opened it", async () => {
    const batcher = new IsolateAuditBatcher("failures", 50);
    const stores = countingStores();
    const first = host();
    const others = host();
    const records = [auditRecord("batch-org"), auditRecord("batch-org", { target: "orders_search", reason: "token=abc123secret" }), auditRecord("batch-org-2")];
    batcher.add(records[0]!, stores.lookup, first.afterAnswer);
    batcher.add(records[1]!, stores.lookup, others.afterAnswer);
    batcher.add(records[2]!, stores.lookup, others.afterAnswer);
    // Only the opener keeps its request alive for the flush; nothing was sent yet.
    expect(first.count()).toBe(1);
    expect(others.count()).toBe(0);
    expect(stores.batches).toEqual([]);
    await first.settled();
    expect(stores.batches.map((batch) => batch.length).sort()).toEqual([1, 2]);
    for (const item of records) expect(await storedIn(item.organizationId, item.correlationId)).toHaveLength(1);
    // Scrubbed before it was batched.
    const scrubbed = (await storedIn("batch-org", records[1]!.correlationId))[0]!.reason;
    expect(scrubbed).toContain("[redacted]");
    expect(scrubbed).not.toContain("abc123secret");

    // The next call after the flush opens a new batch.
    const next = host();
    const later = auditRecord("batch-org");
    batcher.add(later, stores.lookup, next.afterAnswer);
    expect(next.count()).toBe(1);
    await next.settled();
    expect(stores.batches).toHaveLength(3);
    expect(await storedIn("batch-org", later.correlationId)).toHaveLength(1);
  });

  it("keeps a batch open for the default window: a record 100 ms after the opener still goes with it (one RPC, not two)", async () => {
    // The window is what makes a batch more than a few records under load (isolate-batch.ts): at 20 ms, as before,
    // this second record opened a batch and an RPC of its own.
    expect(BATCH_WINDOW_MS).toBeGreaterThan(100);
    const batcher = new IsolateAuditBatcher("failures");
    const stores = countingStores();
    const opener = host();
    const late = host();
    const records = [auditRecord("batch-window"), auditRecord("batch-window")];
    batcher.add(records[0]!, stores.lookup, opener.afterAnswer);
    // Timers fire in deadline order, so this runs before the opener's flush, however loaded the machine.
    await new Promise((done) => setTimeout(done, 100));
    batcher.add(records[1]!, stores.lookup, late.afterAnswer);
    expect(late.count()).toBe(0);
    await opener.settled();
    expect(stores.batches.map((batch) => batch.length)).toEqual([2]);
    for (const item of records) expect(await storedIn(item.organizationId, item.correlationId)).toHaveLength(1);
  });

  it("logs every record of a batch in full (stored: false) when the store cannot be reached", async () => {
    const log = vi.spyOn(console, "log");
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const batcher = new IsolateAuditBatcher("failures", 10);
    const down: AuditBatchLookup = () => ({
      appendBatch: async () => {
        throw new Error("Durable Object storage is unavailable");
      },
    });
    const opener = host();
    const records = [auditRecord("batch-down"), auditRecord("batch-down")];
    for (const item of records) batcher.add(item, down, opener.afterAnswer);
    await opener.settled();
    for (const item of records) {
      const lines = log.mock.calls.map((call) => String(call[0])).filter((line) => line.includes('"event":"audit"') && line.includes(item.correlationId));
      expect(lines.map((line) => JSON.parse(line))).toEqual([{ level: "info", event: "audit", ...item, stored: false }]);
    }
  });
});
