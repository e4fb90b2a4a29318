/**
 * Which audit records are also printed as a structured log line (`"event": "audit"`), from the Worker variable
 * AUDIT_LOG_LINES:
 *  - "failures" (the default): only a record the audit store did not take, in full with `stored: false`. The log
 *    is then the record's only copy, so it is never left out.
 *  - "all": every record, `stored: true` once stored, for operators who read the trail in their log search.
 * Stored records are not printed by default because the store already holds them (the console, the REST API and
 * `audit_query` read it) and a line per call is a real cost of the call: bench:profile measured about 1 ms of
 * server CPU per governed call for printing it under wrangler dev, a sixth of the call.
 */
import type { Env } from "../env";
import { logWarn } from "../lib/log";

export type AuditLogLines = "failures" | "all";

const VALUES: readonly AuditLogLines[] = ["failures", "all"];
let warnedAbout: string | undefined;

/** The setting of this deployment; an unknown value is named in one warning and the default applies. */
export function auditLogLinesOf(env: Pick<Env, "AUDIT_LOG_LINES">): AuditLogLines {
  const value = env.AUDIT_LOG_LINES?.trim() ?? "";
  if (value === "") return "failures";
  if ((VALUES as readonly string[]).includes(value)) return value as AuditLogLines;
  if (warnedAbout !== value) {
    warnedAbout = value;
    logWarn("AUDIT_LOG_LINES has an unknown value; printing only the records the audit store did not take", {
      got: value.slice(0, 40),
      allowed: VALUES.join(", "),
    });
  }
  return "failures";
}
