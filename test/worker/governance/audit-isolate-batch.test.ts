/**
 * The stateless lane's audit batches (src/audit/isolate-batch.ts): records of calls an isolate answers at about
 * the same time go to the store in one appendBatch, flushed by the call that opened the batch and kept alive by
 * its afterAnswer; each is stored once, and what the store does not take is logged in full.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IsolateAuditBatcher } from "../../../src/audit/isolate-batch";
import type { AuditBatchLookup, AuditDelivery } from "../../../src/audit/outbox";
import type { AuditRecord } from "../../../src/audit/record";
import { auditStoresIn } from "../../../src/audit/sink";
import { newCorrelationId } from "../../../src/core/correlation";

afterEach(() => {
  vi.restoreAllMocks();
});

function record(organizationId: string, overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    correlationId: newCorrelationId(),
    time: new Date().toISOString(),
    organizationId,
    userId: "ana",
    clientId: "client-batch",
    kind: "tool",
    target: "whoami",
    argumentsDigest: "",
    durationMs: 1,
    outcome: "ok",
    reason: "",
    ...overrides,
  };
}

const storedIn = async (organizationId: string, correlationId: string) => (await auditStoresIn(env.AUDIT_LOG)(organizationId).query(organizationId, { correlationId, limit: 10 })).events;

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

function host() {
  const writes: Promise<void>[] = [];
  return { afterAnswer: (write: Promise<void>) => void writes.push(write), settled: () => Promise.all(writes), count: () => writes.length };
}

describe("isolate audit batches (stateless lane)", () => {
  it("sends the records of calls answered together in one batch per organization, flushed by the call that opened it", async () => {
    const batcher = new IsolateAuditBatcher("failures", 50);
    const stores = countingStores();
    const first = host();
    const others = host();
    const records = [record("batch-org"), record("batch-org", { target: "orders_search", reason: "token=abc123secret" }), record("batch-org-2")];
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
    const later = record("batch-org");
    batcher.add(later, stores.lookup, next.afterAnswer);
    expect(next.count()).toBe(1);
    await next.settled();
    expect(stores.batches).toHaveLength(3);
    expect(await storedIn("batch-org", later.correlationId)).toHaveLength(1);
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
    const records = [record("batch-down"), record("batch-down")];
    for (const item of records) batcher.add(item, down, opener.afterAnswer);
    await opener.settled();
    for (const item of records) {
      const lines = log.mock.calls.map((call) => String(call[0])).filter((line) => line.includes('"event":"audit"') && line.includes(item.correlationId));
      expect(lines.map((line) => JSON.parse(line))).toEqual([{ level: "info", event: "audit", ...item, stored: false }]);
    }
  });
});
