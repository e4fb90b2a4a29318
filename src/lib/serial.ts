/**
 * Runs async work one piece after another, in the order asked: what a Durable Object needs when its RPCs and alarms
 * await between reads and writes of the same state (a batch and a start must never interleave at their awaits).
 */
export class Serial {
  private queue: Promise<unknown> = Promise.resolve();

  /** Runs `work` after everything asked for before it; its failure is its caller's and stops nothing after it. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
