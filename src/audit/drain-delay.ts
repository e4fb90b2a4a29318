/**
 * How long after a session's first waiting audit record its outbox drains (outbox.ts, src/mcp/session/agent.ts), from the
 * Worker variable AUDIT_DRAIN_DELAY_SECONDS: 0 to 60 whole seconds, 5 by default. A longer delay sends more of a
 * session's records in one batch; each drain is an alarm of the session object, and bench:mcp measured the
 * per-second drains of a busy session (delay 1) as about a third of the session lane's throughput: 0.55x bare
 * against 0.75-0.80x with 5. What it costs: a record reaches the audit store (the console, the REST API,
 * `audit_events_list`) up to that long after the answer; it is durable in the session's storage meanwhile.
 */
import type { Env } from "../env";
import { logWarn } from "../lib/log";

export const DEFAULT_AUDIT_DRAIN_DELAY_SECONDS = 5;
const MAX_AUDIT_DRAIN_DELAY_SECONDS = 60;
let warnedAbout: string | undefined;

/** The delay of this deployment; a value that is not a whole number from 0 to 60 is named in a warning and the default applies. */
export function auditDrainDelayOf(env: Pick<Env, "AUDIT_DRAIN_DELAY_SECONDS">): number {
  const value = env.AUDIT_DRAIN_DELAY_SECONDS?.trim() ?? "";
  if (value === "") return DEFAULT_AUDIT_DRAIN_DELAY_SECONDS;
  const seconds = Number(value);
  if (/^\d+$/.test(value) && seconds <= MAX_AUDIT_DRAIN_DELAY_SECONDS) return seconds;
  if (warnedAbout !== value) {
    warnedAbout = value;
    logWarn("AUDIT_DRAIN_DELAY_SECONDS is not a whole number of seconds from 0 to 60; using the default", {
      got: value.slice(0, 40),
      default: DEFAULT_AUDIT_DRAIN_DELAY_SECONDS,
    });
  }
  return DEFAULT_AUDIT_DRAIN_DELAY_SECONDS;
}
