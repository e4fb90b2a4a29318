/**
 * Fixed windows anchored at the first admitted call: a window opens when a call arrives and none is
 * open, admits `limit` calls, and closes `windowSeconds` later. Pure functions: the clock is a parameter.
 * Anchoring at the first call (rather than at wall-clock multiples of the window) means a burst never
 * straddles a boundary it did not start, so "N concurrent calls against a limit of L admit exactly L" holds.
 */
import type { Quota } from "./policy";

/** What the coordinator keeps per (organization, client, target), in memory and in KV. */
export interface WindowState {
  /** Epoch milliseconds at which the window opened. */
  start: number;
  /** Calls admitted in this window. */
  count: number;
}

export type WindowDecision =
  | { allowed: true; remaining: number; state: WindowState }
  | { allowed: false; retryAfterSeconds: number; state: WindowState | null };

export function windowEnd(state: WindowState, quota: Quota): number {
  return state.start + quota.windowSeconds * 1000;
}

/** The window still open at `now`, or null when there is none (never opened, or elapsed). */
export function openWindow(state: WindowState | null, quota: Quota, now: number): WindowState | null {
  if (!state || now >= windowEnd(state, quota)) return null;
  return state;
}

/** Admits one call if the open window has room, opening a new window when none is open. */
export function decide(state: WindowState | null, quota: Quota, now: number): WindowDecision {
  const current = openWindow(state, quota, now) ?? { start: now, count: 0 };
  if (current.count < quota.limit) {
    const next = { start: current.start, count: current.count + 1 };
    return { allowed: true, remaining: quota.limit - next.count, state: next };
  }
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowEnd(current, quota) - now) / 1000)), state };
}

/** Calls still admitted in the open window, and seconds until it closes (0 when none is open). */
export function remainingIn(
  state: WindowState | null,
  quota: Quota,
  now: number,
): { remaining: number; resetsInSeconds: number } {
  const current = openWindow(state, quota, now);
  if (!current) return { remaining: quota.limit, resetsInSeconds: 0 };
  return {
    remaining: Math.max(0, quota.limit - current.count),
    resetsInSeconds: Math.max(1, Math.ceil((windowEnd(current, quota) - now) / 1000)),
  };
}

/** Parses what KV holds; anything malformed is treated as no window (and overwritten on the next write). */
export function parseWindowState(value: unknown): WindowState | null {
  if (!value || typeof value !== "object") return null;
  const { start, count } = value as Partial<WindowState>;
  if (
    typeof start !== "number" ||
    !Number.isFinite(start) ||
    typeof count !== "number" ||
    !Number.isInteger(count) ||
    count < 0
  )
    return null;
  return { start, count };
}
