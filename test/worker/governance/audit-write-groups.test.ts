/**
 * Records one isolate writes to one organization's audit store at about the same time travel in one RPC
 * (src/audit/write-groups.ts), and each writer still waits for its own record's answer: concurrent callers make fewer
 * writes than records, every record is stored once, a refused record is answered as refused to its own caller only, a
 * write that fails answers everyone in it as not stored (the sink then logs each in full), a write that closely follows
 * one of several records lets records join it while a caller alone goes at once, and a writer that never comes back delays
 * the records behind it by WAIT_LIMIT_MS at most. The last test runs concurrent stateless calls
 * through the Worker: each answer's record is in the store when the answer arrives.
 */
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { AuditRecord } from "../../../src/audit/record";
import { auditTrailIn } from "../../../src/audit/trail";
import type { AppendResult, AuditDelivery } from "../../../src/audit/store-rpc";
import {
  AuditWriteGroups,
  MAX_IDLE_GROUPS,
  WAIT_LIMIT_MS,
  type AuditBatchAppender,
} from "../../../src/audit/write-groups";
import { auditRecord, modernPost, obtainTokens, readRpc } from "../helpers";

const storedIn = async (organizationId: string, correlationId: string) =>
  (await auditTrailIn(env.AUDIT_LOG)(organizationId).query(organizationId, { correlationId, limit: 10 })).events;

/** The real store of an organization, counting its writes and the size of each. */
function countingStore(organizationId: string) {
  const real = auditTrailIn(env.AUDIT_LOG)(organizationId);
  const sizes: number[] = [];
  const store: AuditBatchAppender = {
    async appendBatch(deliveries: AuditDelivery[]) {
      sizes.push(deliveries.length);
      return real.appendBatch(deliveries);
    },
  };
  return { store, sizes };
}

describe("audit write groups", () => {
  it("sends concurrent records of one organization in fewer writes, each record stored once and answered once it is", async () => {
    const groups = new AuditWriteGroups();
    const { store, sizes } = countingStore("groups-org");
    const records = Array.from({ length: 40 }, () => auditRecord("groups-org"));
    const answers = await Promise.all(
      records.map(async (record) => {
        const answer = await groups.append(store, record);
        // Answered only once stored: the store already has it.
        return { answer, stored: (await storedIn("groups-org", record.correlationId)).length };
      }),
    );
    expect(answers.every(({ answer, stored }) => answer.stored && stored === 1)).toBe(true);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(40);
    // The first record is written at once, alone; the others waited for it and went together.
    expect(sizes[0]).toBe(1);
    expect(sizes.length).toBeLessThan(40);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
  });

  it("answers each record with its own answer: a refused one does not refuse the others", async () => {
    const groups = new AuditWriteGroups();
    const { store } = countingStore("refusing-org");
    const good = auditRecord("refusing-org");
    const malformed = { ...auditRecord("refusing-org"), outcome: "fine" } as unknown as AuditRecord;
    const alsoGood = auditRecord("refusing-org");
    const [first, second, third] = await Promise.all([
      groups.append(store, good),
      groups.append(store, malformed),
      groups.append(store, alsoGood),
    ]);
    expect(first).toEqual({ stored: true });
    expect(second).toMatchObject({ stored: false, problem: expect.stringContaining("malformed record") });
    expect(third).toEqual({ stored: true });
    expect(await storedIn("refusing-org", alsoGood.correlationId)).toHaveLength(1);
  });

  it("answers every record of a failed write as not stored, with the failure", async () => {
    const groups = new AuditWriteGroups();
    let writes = 0;
    const failing: AuditBatchAppender = {
      appendBatch: async (): Promise<AppendResult[]> => {
        writes++;
        throw new Error("Durable Object storage is unavailable");
      },
    };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => groups.append(failing, auditRecord("failing-org"))),
    );
    expect(answers).toEqual(
      Array.from({ length: 5 }, () => ({ stored: false, problem: "Durable Object storage is unavailable" })),
    );
    expect(writes).toBe(2);
  });

  it("a writer that never comes back delays the records behind it by the wait limit, then they write themselves", async () => {
    const groups = new AuditWriteGroups();
    const { store: real, sizes } = countingStore("stalled-org");
    let calls = 0;
    const stallingFirst: AuditBatchAppender = {
      appendBatch: (deliveries) => (calls++ === 0 ? new Promise(() => undefined) : real.appendBatch(deliveries)),
    };
    void groups.append(stallingFirst, auditRecord("stalled-org"));
    const behind = Array.from({ length: 3 }, () => auditRecord("stalled-org"));
    const started = Date.now();
    const answers = await Promise.all(behind.map((record) => groups.append(stallingFirst, record)));
    expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_LIMIT_MS - 50);
    expect(answers).toEqual([{ stored: true }, { stored: true }, { stored: true }]);
    for (const record of behind) expect(await storedIn("stalled-org", record.correlationId)).toHaveLength(1);
    // They wrote themselves, each once (their waits run out together: whichever takes the others writes them).
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(3);
    // And the next record finds no stalled write in its way.
    const next = auditRecord("stalled-org");
    const quick = Date.now();
    expect(await groups.append(stallingFirst, next)).toEqual({ stored: true });
    expect(Date.now() - quick).toBeLessThan(WAIT_LIMIT_MS);
  });

  it("drops idle organizations' queues past MAX_IDLE_GROUPS, never one with a write under way", async () => {
    // A clock moved by hand: a thousand appends can take longer than BUSY_WITHIN_MS on a loaded machine.
    let now = 1_000_000;
    const groups = new AuditWriteGroups(() => now);
    const answering: AuditBatchAppender = {
      appendBatch: async (deliveries) => deliveries.map(() => ({ stored: true })),
    };
    let release = () => {};
    const holding: AuditBatchAppender = {
      appendBatch: (deliveries) =>
        new Promise((done) => {
          release = () => done(deliveries.map(() => ({ stored: true })));
        }),
    };
    const busy = groups.append(holding, auditRecord("busy-org"));
    for (let index = 1; index < MAX_IDLE_GROUPS; index++)
      expect(await groups.append(answering, auditRecord(`idle-org-${index}`))).toEqual({ stored: true });
    expect(groups.size).toBe(MAX_IDLE_GROUPS);
    // Written just now: kept (a write within BUSY_WITHIN_MS decides whether the next one gathers).
    expect(await groups.append(answering, auditRecord("one-more-org"))).toEqual({ stored: true });
    expect(groups.size).toBe(MAX_IDLE_GROUPS + 1);
    now += 60;
    expect(await groups.append(answering, auditRecord("new-org"))).toEqual({ stored: true });
    // The idle ones are gone; the one whose write is under way stays, and still gets its answer.
    expect(groups.size).toBe(2);
    release();
    expect(await busy).toEqual({ stored: true });
  });

  it("a write that closely follows one of several records lets records join it; a caller alone is written at once", async () => {
    // The gathering decisions read a clock moved by hand: on a loaded machine the real one can pass BUSY_WITHIN_MS
    // between two statements. Timers stay real (the record appended 1 ms later, the 5 ms gathering).
    let now = 1_000_000;
    const groups = new AuditWriteGroups(() => now);
    const { store, sizes } = countingStore("gathering-org");
    const append = () => groups.append(store, auditRecord("gathering-org"));
    const appendSoon = async () => {
      await new Promise((done) => setTimeout(done, 1));
      return append();
    };
    // Three at once: the first goes alone, the two that waited behind it go together.
    await Promise.all([append(), append(), append()]);
    expect(sizes).toEqual([1, 2]);
    // Right after a write of several: the next writer waits a moment, and a record appended 1 ms later joins it.
    await Promise.all([append(), appendSoon()]);
    expect(sizes).toEqual([1, 2, 2]);
    // One record alone (it still gathers: the last write carried two), then one caller after another: no write of
    // several before them, so each goes at once and the record appended 1 ms later does not join the one before it.
    await append();
    expect(sizes).toEqual([1, 2, 2, 1]);
    await Promise.all([append(), appendSoon()]);
    expect(sizes).toEqual([1, 2, 2, 1, 1, 1]);
    // After a quiet moment, at once whatever the last write carried.
    await Promise.all([append(), append(), append()]);
    now += 120;
    await Promise.all([append(), appendSoon()]);
    expect(sizes).toEqual([1, 2, 2, 1, 1, 1, 1, 2, 1, 1]);
  });

  it("a waiting record looks when the write ahead of it is expected to have answered, not every few ms", async () => {
    const groups = new AuditWriteGroups();
    const real = auditTrailIn(env.AUDIT_LOG)("patient-org");
    const WRITE_MS = 40;
    const slow: AuditBatchAppender = {
      async appendBatch(deliveries: AuditDelivery[]) {
        await new Promise((done) => setTimeout(done, WRITE_MS));
        return real.appendBatch(deliveries);
      },
    };
    // One write alone tells the group how long its writes take.
    expect(await groups.append(slow, auditRecord("patient-org"))).toEqual({ stored: true });
    const timers = vi.spyOn(globalThis, "setTimeout");
    try {
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => groups.append(slow, auditRecord("patient-org"))),
      );
      expect(answers.every((answer) => answer.stored)).toBe(true);
      // Nine records wait behind the first write (40 ms), then go in one write of their own (5 ms gathering, 40 ms).
      // Looking after 1, 2, 4 ms and then every 4 ms took about 20 looks each; on the expectation it is a few.
      const ownTimers = 2 + 1; // the slow store's, one per write, and the second write's gathering
      const looks = timers.mock.calls.length - ownTimers;
      expect(looks).toBeGreaterThanOrEqual(9);
      expect(looks).toBeLessThan(9 * 12); // half the old schedule's, room for a loaded machine's late timers
    } finally {
      timers.mockRestore();
    }
  });

  it("concurrent 2026-07-28 calls through the Worker: each answer's record is already stored", async () => {
    const { tokens, client } = await obtainTokens({ user: "ana", scope: "orders.read" });
    const call = async (id: number) => {
      const response = await modernPost(tokens.access_token, "tools/call", { name: "whoami", arguments: {} }, {}, id);
      expect(response.status).toBe(200);
      const [message] = await readRpc(response);
      const correlationId = message!.result._meta.correlationId as string;
      // No polling: the record is there when the answer is.
      return storedIn("acme", correlationId);
    };
    const stored = await Promise.all(Array.from({ length: 12 }, (_, index) => call(index + 1)));
    for (const records of stored) {
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ target: "whoami", outcome: "ok", clientId: client.client_id });
    }
  });
});
