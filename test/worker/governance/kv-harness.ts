/**
 * Test harness for the rate limiter: a virtual clock with timers, and a wrapper around a real KV
 * namespace that counts reads and writes and can be told to fail or throttle.
 */
import type { CounterKv } from "../../../src/ratelimit/coordinator-core";

export class VirtualTime {
  now: number;
  private timers: Array<{ at: number; order: number; task: () => Promise<void> }> = [];
  private order = 0;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.now = start;
  }

  readonly clock = (): number => this.now;

  readonly schedule = (delayMs: number, task: () => Promise<void>): void => {
    this.timers.push({ at: this.now + delayMs, order: this.order++, task });
  };

  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, running every timer that falls due (in order, awaiting each). */
  async advance(ms: number): Promise<void> {
    const target = this.now + ms;
    for (;;) {
      const due = this.timers.filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (!due) break;
      this.timers.splice(this.timers.indexOf(due), 1);
      this.now = Math.max(this.now, due.at);
      await due.task();
    }
    this.now = target;
  }
}

export type WriteFailure = "none" | "error" | "throttle";

export class CountingKv implements CounterKv {
  readonly writes: Array<{ key: string; at: number; value: string }> = [];
  reads = 0;
  failReads = false;
  failWrites: WriteFailure = "none";

  constructor(
    private readonly inner: KVNamespace,
    private readonly clock: () => number,
  ) {}

  async get(key: string, type: "text"): Promise<string | null> {
    this.reads++;
    if (this.failReads) throw new Error("KV GET failed: 500 Internal Server Error");
    return this.inner.get(key, type);
  }

  async put(key: string, value: string, options?: { expirationTtl?: number }): Promise<void> {
    this.writes.push({ key, at: this.clock(), value });
    if (this.failWrites === "throttle") throw new Error("KV PUT failed: 429 Too Many Requests");
    if (this.failWrites === "error") throw new Error("KV PUT failed: 500 Internal Server Error");
    await this.inner.put(key, value, options);
  }

  writesOf(key: string): number[] {
    return this.writes.filter((write) => write.key === key).map((write) => write.at);
  }
}

/** The smallest gap between consecutive writes of one key (Infinity with fewer than two writes). */
export function smallestGap(times: number[]): number {
  let gap = Number.POSITIVE_INFINITY;
  for (let i = 1; i < times.length; i++) gap = Math.min(gap, times[i]! - times[i - 1]!);
  return gap;
}
