/**
 * Group commit for the audit sink (sink.ts): the records one isolate writes to one organization's audit store at
 * about the same time travel in one RPC, and each writer still learns its own record's answer before it answers.
 *
 * A record that finds no write of its organization under way is written by the request that made it: at once, unless
 * requests are evidently writing together (records already waiting, or the last write, just now, carried several):
 * then after GATHER_MS, so that others join it. Records that arrive while a write is under way wait; when that write
 * ends, the first of them writes them all. Every write is made by a request whose own record is in it (an RPC
 * belongs to the request that makes it: no request does I/O for another, and none outlives its answer to finish
 * someone else's). Nothing waits in memory after its caller answers, so an isolate that dies after an answer loses no
 * record of it.
 *
 * A waiting request looks for its answer on its own timers (watch() says why). A writer whose request is cancelled
 * mid-write (its client went away) never hands the turn on; a record that has waited WAIT_LIMIT_MS for its turn then
 * takes it (its own request writes what is waiting), so a stalled write delays the records behind it by at most that
 * long.
 */
import type { AuditRecord } from "./record";
import type { AppendResult, AuditDelivery } from "./store-rpc";

/** The part of an organization's audit store that writing needs (the Durable Object stub's batch append). */
export interface AuditBatchAppender {
  appendBatch(deliveries: AuditDelivery[]): Promise<AppendResult[]>;
}

/** At most this many records per RPC; more waiting go in the next write. */
export const MAX_GROUP = 100;
/** How long a record waits for its turn before its own request writes (a writer that never came back). */
export const WAIT_LIMIT_MS = 1_000;
/**
 * A waiting record looks for its answer when the write under way is expected to have answered (it began, plus its
 * gathering, plus how long writes have been taking, smoothed), and past that time after 1, 2, 4 ms, then every
 * MAX_PAUSE_MS.
 */
const MAX_PAUSE_MS = 4;
/** The longest a waiting record sleeps on the expectation alone before it looks. */
const MAX_EXPECTED_PAUSE_MS = 50;
/**
 * A write that finds records already waiting, or that follows within BUSY_WITHIN_MS a write of several records, first
 * lets others join for GATHER_MS: under load fewer, larger writes (bench:mcp's stateless throughput,
 * docs/benchmarks.md), while a caller alone, even one calling in a loop (CI uploading), is written at once: waiting
 * whenever the last write was recent cost a sequential REST upload 5 ms per record for no one to join.
 */
const GATHER_MS = 5;
const BUSY_WITHIN_MS = 50;
/**
 * One isolate may write for many organizations over its life: past this many queues, a new one first drops those
 * with nothing waiting, no write under way and no write within BUSY_WITHIN_MS (all they hold is the smoothed write
 * time, which the next write measures again).
 */
export const MAX_IDLE_GROUPS = 1_000;

/** One record waiting for its write: its answer once written, or the word that its request is to write. */
interface Waiting {
  record: AuditRecord;
  answer?: AppendResult;
  turn?: true;
}

/** One organization's queue: the records waiting and the write under way, if any. */
interface Group {
  waiting: Waiting[];
  /** The write under way (compared by identity, so a writer that comes back late hands on nothing). */
  writer: object | null;
  /** When the last write ended (epoch ms) and how many records it carried: see GATHER_MS. */
  lastWrite: number;
  lastSize: number;
  /** When the write under way is expected to have its answer (epoch ms), and how long writes' RPCs take. */
  expectedEnd: number;
  writeMs: number;
}

export class AuditWriteGroups {
  /** One entry per organization this isolate writes records for: a queue and a few times (MAX_IDLE_GROUPS). */
  private readonly groups = new Map<string, Group>();

  /** `now`: the clock of the gathering decisions and the expectations (tests pass one they move by hand). */
  constructor(private readonly now: () => number = Date.now) {}

  /** How many organizations' queues are held. */
  get size(): number {
    return this.groups.size;
  }

  /** Resolves with the store's answer for this record (never rejects: a failed write is `stored: false`). */
  async append(store: AuditBatchAppender, record: AuditRecord): Promise<AppendResult> {
    const group = this.groupOf(record.organizationId);
    const me: Waiting = { record };
    group.waiting.push(me);
    if (group.writer === null) return this.write(group, store, me);
    await watch(group, me, this.now);
    if (me.answer) return me.answer;
    // Its turn (handed on by the last writer, or its wait ran out), unless a write took it meanwhile.
    if (group.waiting.includes(me)) return this.write(group, store, me);
    return heldAnswer(group, me, this.now);
  }

  /** Writes the waiting records, `me` first, answers each, and hands the turn to the first record still waiting. */
  private async write(group: Group, store: AuditBatchAppender, me: Waiting): Promise<AppendResult> {
    const writer = {};
    group.writer = writer;
    const gathers = group.waiting.length > 1 || (group.lastSize > 1 && this.now() - group.lastWrite < BUSY_WITHIN_MS);
    group.expectedEnd = this.now() + (gathers ? GATHER_MS : 0) + group.writeMs;
    if (gathers) {
      await new Promise((resume) => setTimeout(resume, GATHER_MS));
      // Another writer took it meanwhile (two waits ran out together): its answer comes with that write.
      if (!group.waiting.includes(me)) return heldAnswer(group, me, this.now);
      group.writer = writer;
    }
    group.waiting.splice(group.waiting.indexOf(me), 1);
    const batch = [me, ...group.waiting.splice(0, MAX_GROUP - 1)];
    const sent = this.now();
    const answers = await appendAll(store, batch);
    group.lastWrite = this.now();
    group.lastSize = batch.length;
    // Smoothed, so that one slow write does not make the waiters of the next ones sleep as long; the first is taken as is.
    const took = group.lastWrite - sent;
    group.writeMs = group.writeMs === 0 ? took : group.writeMs + (took - group.writeMs) / 4;
    for (const [index, waiting] of batch.entries()) {
      waiting.answer = answers[index]!;
    }
    if (group.writer === writer) {
      const next = group.waiting[0];
      // The next writer's placeholder until its request takes the turn.
      group.writer = next ? {} : null;
      if (next) next.turn = true;
    }
    return me.answer!;
  }

  private groupOf(organizationId: string): Group {
    let group = this.groups.get(organizationId);
    if (!group) {
      if (this.groups.size >= MAX_IDLE_GROUPS) this.dropIdle();
      group = { waiting: [], writer: null, lastWrite: 0, lastSize: 0, expectedEnd: 0, writeMs: 0 };
      this.groups.set(organizationId, group);
    }
    return group;
  }

  private dropIdle(): void {
    const before = this.now() - BUSY_WITHIN_MS;
    for (const [organizationId, group] of this.groups) {
      if (group.writer === null && group.waiting.length === 0 && group.lastWrite < before)
        this.groups.delete(organizationId);
    }
  }
}

/**
 * Resolves once the record has its answer or its turn, or after WAIT_LIMIT_MS. It looks on timers of its own request
 * rather than waiting for a promise another request resolves: in the Workers runtime a continuation woken that way can
 * run as the other request, whose I/O objects (this request's stub and span) it may not use (tried: "Cannot perform
 * I/O on behalf of a different request", and requests that never answered once the other one ended). A promise made
 * by the waiting request itself, resolved by the writer's, hung as well (tried with workerd 1.20261117: the runtime
 * queues such a continuation for the waiting request, which has no event of its own to run it on).
 */
async function watch(group: Group, me: Waiting, now: () => number): Promise<void> {
  me.turn = undefined;
  // Each look costs a wake-up of this request: looking every 1-4 ms from the start cost the stateless lane's governed
  // call about as much server CPU as its audit RPC (docs/benchmarks.md, 2026-12-04 afternoon).
  for (let waited = 0, late = 1; waited < WAIT_LIMIT_MS; ) {
    const untilExpected = Math.min(Math.ceil(group.expectedEnd - now()), MAX_EXPECTED_PAUSE_MS);
    const pause = untilExpected >= 1 ? untilExpected : late;
    if (untilExpected >= 1) late = 1;
    else late = Math.min(late * 2, MAX_PAUSE_MS);
    await new Promise((resume) => setTimeout(resume, pause));
    waited += pause;
    if (me.answer || me.turn) return;
  }
}

/** A record a write holds: its answer comes with that write, for at most one more wait. */
async function heldAnswer(group: Group, me: Waiting, now: () => number): Promise<AppendResult> {
  await watch(group, me, now);
  return me.answer ?? notStored(`its write did not answer within ${WAIT_LIMIT_MS} ms`);
}

async function appendAll(store: AuditBatchAppender, batch: Waiting[]): Promise<AppendResult[]> {
  try {
    const answers = await store.appendBatch(batch.map(({ record }) => ({ deliveryId: null, record })));
    if (answers.length !== batch.length) throw new Error(`${answers.length} answers for ${batch.length} records`);
    return answers;
  } catch (error) {
    const problem = notStored(error instanceof Error ? error.message : String(error));
    return batch.map(() => problem);
  }
}

const notStored = (problem: string): AppendResult => ({ stored: false, problem });

/** The isolate's groups: every sink of the Worker shares them, so concurrent requests' records travel together. */
export const isolateWriteGroups = new AuditWriteGroups();
