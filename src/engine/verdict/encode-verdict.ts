/**
 * A verdict as the store records it. Pure (no Workers types), so the benchmark times the very function an upload
 * runs.
 */
import type { Verdict } from "../types";

export function encodeVerdict(verdict: Verdict): {
  approved: boolean;
  totalViolations: number;
  errorCount: number;
  json: Uint8Array;
} {
  return {
    approved: verdict.approved,
    totalViolations: verdict.totalViolations,
    // From the summary: it counts every violation, the list holds at most MAX_LISTED_PER_RULE of each rule.
    errorCount: verdict.summary.reduce((sum, entry) => sum + (entry.severity === "error" ? entry.count : 0), 0),
    json: new TextEncoder().encode(JSON.stringify(verdict)),
  };
}
