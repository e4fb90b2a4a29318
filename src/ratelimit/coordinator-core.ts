/**
 * The decision engine of one rate-limit coordinator (one per organization and client).
 *
 * - Decisions are made in memory, synchronously after the counter is loaded, so concurrent calls are
 *   serialised by the JavaScript event loop: 100 concurrent calls against a limit of 30 admit exactly 30.
 * - Counters are restored from KV the first time a key is used (after a restart or eviction) and written
 *   back to KV behind the decisions, at most once per `minWriteIntervalMs` (1 s) per key: KV allows about
 *   one write per second per key.
 * - When KV cannot be read, the caller's `onStoreFailure` decides: `open` counts from zero in memory,
 *   `closed` refuses until KV answers. A failed write never changes a decision (memory is authoritative);
 *   it is retried on the same one-second schedule.
 *
 * The KV binding, the clock and the timer are injected so tests can count writes, inject failures and
 * move time.
 */
import type { RateLimitDecision } from "./hook";
import type { Quota } from "./policy";
import { decide, parseWindowState, remainingIn, windowEnd, type WindowState } from "./window";
import { withSpan } from "../lib/telemetry/span";
import { logWarn } from "../lib/log";

export type StoreFailureMode = "open" | "closed";

/** The part of a KV namespace the coordinator uses. */
export interface CounterKv {
  get(key: string, type: "text"): Promise<string | null>;
  put(key: string, value: string, options?: { expirationTtl?: number; metadata?: unknown }): Promise<void>;
  /** One page of keys with their metadata (each counter's state rides in its metadata: see loadAll). */
  list?(options: {
    prefix: string;
  }): Promise<{ keys: Array<{ name: string; metadata?: unknown }>; list_complete: boolean }>;
}

/** What a lease (several calls decided at once, for a holder that decides them itself) gets. */
export type LeaseGrant =
  | { granted: number; limit: number; windowEndsAt: number; remaining: number }
  | {
      granted: 0;
      limit: number;
      retryAfterSeconds: number;
      cause: "quota" | "store-unavailable";
      windowEndsAt?: undefined;
    };

export interface CoordinatorOptions {
  kv: CounterKv;
  now?: () => number;
  /** Runs `task` after `delayMs`. The Durable Object uses setTimeout; tests use a virtual clock. */
  schedule?: (delayMs: number, task: () => Promise<void>) => void;
  minWriteIntervalMs?: number;
}

/** Seconds a caller is told to wait when a fail-closed limiter cannot read its counter. */
export const STORE_FAILURE_RETRY_SECONDS = 5;
/** KV refuses expirationTtl below 60 s. */
const MIN_KV_TTL_SECONDS = 60;

interface Entry {
  state: WindowState | null;
  loaded: boolean;
  loading: Promise<void> | undefined;
  /** The longest window this key has been used with, for the KV expiry. */
  windowSeconds: number;
  dirty: boolean;
  flushScheduled: boolean;
  writing: boolean;
  lastWriteAt: number;
}

export interface UsageReport {
  remaining: number | null;
  resetsInSeconds: number | null;
}

export class WindowCoordinator {
  private readonly entries = new Map<string, Entry>();
  private readonly kv: CounterKv;
  private readonly now: () => number;
  private readonly schedule: (delayMs: number, task: () => Promise<void>) => void;
  private readonly minWriteIntervalMs: number;
  /** Set once a listing of every key of this coordinator was read: a key it did not hold has no counter. */
  private complete = false;
  private listing: Promise<void> | undefined;

  constructor(options: CoordinatorOptions) {
    this.kv = options.kv;
    this.now = options.now ?? (() => Date.now());
    this.schedule =
      options.schedule ??
      ((delayMs, task) => {
        setTimeout(() => void task(), delayMs);
      });
    this.minWriteIntervalMs = options.minWriteIntervalMs ?? 1000;
  }

  /** Admits or refuses one call against `quota` for the counter stored under `key`. */
  async check(key: string, quota: Quota, onStoreFailure: StoreFailureMode): Promise<RateLimitDecision> {
    const entry = this.entryFor(key);
    entry.windowSeconds = Math.max(entry.windowSeconds, quota.windowSeconds);
    if (!(await this.ensureLoaded(key, entry, onStoreFailure))) {
      return {
        allowed: false,
        limit: quota.limit,
        windowSeconds: quota.windowSeconds,
        retryAfterSeconds: STORE_FAILURE_RETRY_SECONDS,
        cause: "store-unavailable",
      };
    }
    // From here to the return there is no await: this is what makes concurrent decisions exact.
    const decision = decide(entry.state, quota, this.now());
    if (!decision.allowed) {
      return {
        allowed: false,
        limit: quota.limit,
        windowSeconds: quota.windowSeconds,
        retryAfterSeconds: decision.retryAfterSeconds,
        cause: "quota",
      };
    }
    entry.state = decision.state;
    entry.dirty = true;
    this.scheduleFlush(key, entry);
    return { allowed: true, limit: quota.limit, remaining: decision.remaining };
  }

  /**
   * Admits up to `want` calls at once against `quota` (counted now, used later by the holder), never more than
   * the window has left. A grant of 0 says when to retry.
   */
  async lease(key: string, quota: Quota, want: number, onStoreFailure: StoreFailureMode): Promise<LeaseGrant> {
    const entry = this.entryFor(key);
    entry.windowSeconds = Math.max(entry.windowSeconds, quota.windowSeconds);
    if (!(await this.ensureLoaded(key, entry, onStoreFailure))) {
      return {
        granted: 0,
        limit: quota.limit,
        retryAfterSeconds: STORE_FAILURE_RETRY_SECONDS,
        cause: "store-unavailable",
      };
    }
    // No await from here to the return, as in check().
    const now = this.now();
    const first = decide(entry.state, quota, now);
    if (!first.allowed)
      return { granted: 0, limit: quota.limit, retryAfterSeconds: first.retryAfterSeconds, cause: "quota" };
    // At most half of what the window has left (at least one): leases shrink as the window fills, so calls leased
    // and then left unused by one holder never exceed what the others could still have had (leases.ts).
    const left = quota.limit - first.state.count + 1;
    const granted = Math.min(Math.max(1, Math.floor(want)), Math.max(1, Math.floor(left / 2)), left);
    entry.state = { start: first.state.start, count: first.state.count - 1 + granted };
    entry.dirty = true;
    this.scheduleFlush(key, entry);
    return {
      granted,
      limit: quota.limit,
      windowEndsAt: windowEnd(entry.state, quota),
      remaining: quota.limit - entry.state.count,
    };
  }

  /**
   * Reads every counter under `prefix` with one KV listing (the state rides in each key's metadata) instead of one
   * read per key: a coordinator serves one (organization, client), and whoami shows all its quotas at once. Keys
   * written before metadata was used, or a failed listing, fall back to one read per key.
   */
  loadAll(prefix: string): Promise<void> {
    if (this.complete || !this.kv.list) return Promise.resolve();
    this.listing ??= this.list(prefix).finally(() => {
      this.listing = undefined;
    });
    return this.listing;
  }

  private async list(prefix: string): Promise<void> {
    try {
      const page = await withSpan(
        "kv.list",
        "client",
        { "db.system": "cloudflare.kv", "db.operation.name": "list" },
        () => this.kv.list!({ prefix }),
      );
      if (!page.list_complete) return;
      for (const key of page.keys) {
        const entry = this.entryFor(key.name);
        if (entry.loaded || entry.loading) continue;
        const state = parseWindowState(key.metadata);
        if (state) {
          entry.state = state;
          entry.loaded = true;
        }
      }
      this.complete = true;
    } catch (error) {
      logWarn("rate-limit counters could not be listed from KV", { prefix, error });
    }
  }

  /** Remaining calls for `key` without counting one; null when the counter cannot be read. */
  async usage(key: string, quota: Quota): Promise<UsageReport> {
    const entry = this.entryFor(key);
    if (!(await this.ensureLoaded(key, entry, "closed"))) return { remaining: null, resetsInSeconds: null };
    return remainingIn(entry.state, quota, this.now());
  }

  private entryFor(key: string): Entry {
    let entry = this.entries.get(key);
    if (!entry) {
      // After a complete listing, a key not in it has no counter: nothing to read.
      entry = {
        state: null,
        loaded: this.complete,
        loading: undefined,
        windowSeconds: 0,
        dirty: false,
        flushScheduled: false,
        writing: false,
        lastWriteAt: Number.NEGATIVE_INFINITY,
      };
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** Loads the counter once; concurrent callers share the same read. False means "refuse" (fail closed). */
  private async ensureLoaded(key: string, entry: Entry, onStoreFailure: StoreFailureMode): Promise<boolean> {
    if (!entry.loaded) {
      entry.loading ??= this.load(key, entry).finally(() => {
        entry.loading = undefined;
      });
      await entry.loading;
    }
    if (entry.loaded) return true;
    if (onStoreFailure === "open") {
      // Fail open: count from zero in memory. Calls made before the restart are not known, so up to one
      // extra quota may be admitted in this window; from here on decisions are exact again.
      entry.loaded = true;
      return true;
    }
    return false;
  }

  private async load(key: string, entry: Entry): Promise<void> {
    try {
      const text = await withSpan(
        "kv.get",
        "client",
        { "db.system": "cloudflare.kv", "db.operation.name": "get" },
        () => this.kv.get(key, "text"),
      );
      let parsed: unknown = null;
      if (text !== null) {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = null;
        }
      }
      // No decision is taken for this key while the read is in flight (every caller awaits it).
      entry.state = parseWindowState(parsed);
      entry.loaded = true;
    } catch (error) {
      logWarn("rate-limit counter could not be read from KV", { key, error });
    }
  }

  private scheduleFlush(key: string, entry: Entry): void {
    if (entry.flushScheduled || entry.writing) return;
    entry.flushScheduled = true;
    const delay = Math.max(0, entry.lastWriteAt + this.minWriteIntervalMs - this.now());
    this.schedule(delay, async () => {
      entry.flushScheduled = false;
      await this.flush(key, entry);
    });
  }

  private async flush(key: string, entry: Entry): Promise<void> {
    if (!entry.dirty || entry.writing || !entry.state) return;
    const snapshot = { ...entry.state };
    const now = this.now();
    // The spacing guarantee counts attempts, not successes: a throttled write still used the key's slot.
    if (now < entry.lastWriteAt + this.minWriteIntervalMs) {
      this.scheduleFlush(key, entry);
      return;
    }
    entry.dirty = false;
    entry.writing = true;
    entry.lastWriteAt = now;
    const quota = { limit: snapshot.count, windowSeconds: entry.windowSeconds };
    const ttl = Math.max(MIN_KV_TTL_SECONDS, Math.ceil((windowEnd(snapshot, quota) - now) / 1000));
    try {
      await this.kv.put(key, JSON.stringify(snapshot), { expirationTtl: ttl, metadata: snapshot });
    } catch (error) {
      entry.dirty = true;
      logWarn("rate-limit counter could not be written to KV; retrying", { key, error });
    } finally {
      entry.writing = false;
    }
    if (entry.dirty) this.scheduleFlush(key, entry);
  }
}
