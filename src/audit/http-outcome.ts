/** The audit outcome of a REST answer, from its status code. */
import type { AuditOutcome } from "./record";

export function outcomeForStatus(status: number): AuditOutcome {
  if (status < 400) return "ok";
  if (status === 401 || status === 403) return "rejected-by-policy";
  if (status === 429) return "rate-limited";
  if (status === 502 || status === 503) return "upstream-error";
  if (status === 504) return "timeout";
  if (status < 500) return "invalid-input";
  return "error";
}
