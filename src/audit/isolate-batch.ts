/**
 * The audit outbox of the 2026-07-28 stateless lane, which has no storage of its own: the records of calls that an
 * isolate answers at about the same time are sent to the audit store together, one appendBatch per organization,
 * instead of one append (one RPC, one write transaction) per call.
 *
 * - The call that opens a batch flushes it, BATCH_WINDOW_MS later, from its own request: its `afterAnswer`
 *   (the request's waitUntil) keeps the isolate running until the batch is sent. Calls answered in the meantime
 *   only add their record (plain data: no I/O object crosses requests) and answer at once.
 * - What is not stored (the store refused it, or could not be reached) is logged in full with `stored: false`, as
 *   everywhere (outbox.ts deliverAuditBatch).
 * - What this lane gives up, as it did before batching: a record lives only in the isolate's memory until it is
 *   sent, so an isolate killed in that window (BATCH_WINDOW_MS plus the RPC) loses it. The platform keeps an
 *   isolate alive for a pending waitUntil, so that takes a crash, not an ordinary eviction. The session lane keeps
 *   its records in the session object's storage instead (outbox.ts).
 */
import type { AfterAnswer } from "./sink";
import type { AuditLogLines } from "./log-lines";
import { deliverAuditBatch, OUTBOX_BATCH, type AuditBatchLookup } from "./outbox";
import type { AuditRecord } from "./record";
import { scrubAuditRecord } from "./scrub";

/**
 * How long a batch stays open for the records of other calls. Each batch costs one RPC to the audit store, and
 * under wrangler dev its fixed cost dominated: bench:profile measured the governed no-op's server CPU per call at
 * 1.24x bench_bare with 20 ms (about 3 records a batch at 150 calls/s) and 1.07x with 250 ms. The price is the
 * loss window on a crash (see above), and a reader sees a record that much later.
 */
export const BATCH_WINDOW_MS = 200;

export class IsolateAuditBatcher {
  private open: AuditRecord[] | undefined;

  constructor(
    private readonly lines: AuditLogLines,
    private readonly windowMs: number = BATCH_WINDOW_MS,
  ) {}

  /** Adds one record; the call that opens a batch hands its flush to `afterAnswer`. Never throws. */
  add(input: AuditRecord, storeFor: AuditBatchLookup, afterAnswer: AfterAnswer): void {
    const record = scrubAuditRecord(input);
    if (this.open && this.open.length < OUTBOX_BATCH) {
      this.open.push(record);
      return;
    }
    const batch = [record];
    this.open = batch;
    afterAnswer(this.flushLater(batch, storeFor));
  }

  private async flushLater(batch: AuditRecord[], storeFor: AuditBatchLookup): Promise<void> {
    await new Promise((done) => setTimeout(done, this.windowMs));
    if (this.open === batch) this.open = undefined;
    // Sent once, never redelivered: no delivery id.
    await deliverAuditBatch(storeFor, batch.map((record) => ({ deliveryId: null, record })), this.lines);
  }
}
