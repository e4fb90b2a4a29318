/**
 * The queue of contract uploads per project, held in the organization's ContractStore object (one per
 * organization, so one queue per project). An upload takes its turn before it reads the active version and gives
 * it back when its version is recorded (or when it fails), so each upload compares with the version its
 * predecessor recorded, in the order the uploads reached the store, and none is refused.
 *
 * A turn is a lease: a Worker that dies holding it (its answer never comes back) would otherwise stop the
 * project's uploads, so a turn ends by itself after LEASE_MS and the next upload goes on. The store still checks,
 * when it records, that the version compared with is the active one; an upload whose lease ran out and lost that
 * race takes a new turn at the end of the queue (contract-upload.ts).
 */

export const LEASE_MS = 30_000;

interface Turn {
  ticket: string;
  timer: ReturnType<typeof setTimeout>;
}

export class ContractUploadQueue {
  private readonly current = new Map<string, Turn>();
  private readonly waiting = new Map<string, Array<() => void>>();

  /** Resolves with this upload's ticket once every upload of `project` that arrived before it is done. */
  take(project: string): Promise<string> {
    return new Promise((resolve) => {
      const grant = () => {
        const ticket = crypto.randomUUID();
        this.current.set(project, { ticket, timer: setTimeout(() => this.give(project, ticket), LEASE_MS) });
        resolve(ticket);
      };
      if (!this.current.has(project)) return grant();
      const queue = this.waiting.get(project);
      if (queue) queue.push(grant);
      else this.waiting.set(project, [grant]);
    });
  }

  /** Ends the turn of `ticket` (nothing happens if it is not the project's current turn) and starts the next. */
  give(project: string, ticket: string): void {
    const turn = this.current.get(project);
    if (!turn || turn.ticket !== ticket) return;
    clearTimeout(turn.timer);
    this.current.delete(project);
    const queue = this.waiting.get(project);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.waiting.delete(project);
    next?.();
  }

  /** Uploads of `project` waiting for their turn (for tests and logs). */
  waitingCount(project: string): number {
    return this.waiting.get(project)?.length ?? 0;
  }
}
