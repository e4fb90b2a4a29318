/**
 * "Is this break used?": every error (and accepted break) of a snapshot's, draft's or contract evolution's verdict
 * gets the evidence of the project's usage index (src/engine/verdict/usage.ts): how many recorded exchanges of its operation
 * the window holds, and of the status, parameter or property it touches. One store read per verdict, for the
 * keys its findings touch, and none for a verdict without errors. "Never seen" is said too, and turns an error
 * into a warning only when the organization's policy says so (conformance.usage.unusedBreaks: "warning").
 * The ingest route's format is checked here as well.
 */
import { z } from "zod";
import type { ConformanceConfig } from "../../engine";
import type { RuleSummary, Verdict, Violation } from "../../engine";
import {
  MAX_USAGE_COUNTS,
  USAGE_WINDOW_DAYS,
  type UsageCount,
  usageEvidence,
  usageOperation,
  usageTarget,
  usageTotals,
} from "../../engine";
import type { Env } from "../../env";
import { projectPlace } from "../store/client";
import type { ContractsCaller } from "./caller";
import { storeFailure } from "./failure";
import { projectStoreOf } from "./store-access";
import { dayOf, USAGE_KEPT_DAYS, type UsageKey } from "../store/usage-table";

const DAY_MS = 86_400_000;

const breaks = (violation: Violation) => violation.severity === "error" || violation.severity === "accepted";

/** The verdict with usage evidence on its errors and accepted breaks (and the policy's severities by usage). */
export async function withUsageEvidence(
  env: Env,
  organizationId: string,
  project: string,
  verdict: Verdict,
  config: ConformanceConfig,
  now = Date.now(),
): Promise<Verdict> {
  // The keys the findings' evidence needs: each operation's own count and what each finding touches.
  const keys = new Map<string, UsageKey>();
  const want = (operation: string, status: string, field: string) =>
    keys.set(`${operation}\n${status}\n${field}`, { operation, status, field });
  for (const violation of verdict.violations) {
    if (!breaks(violation)) continue;
    const target = usageTarget(violation.location);
    if (!target) continue;
    want(target.operation, "", "");
    if (target.status !== "" || target.field !== "") want(target.operation, target.status, target.field);
  }
  if (keys.size === 0) return verdict;
  const days = config.usage?.windowDays ?? USAGE_WINDOW_DAYS;
  const since = dayOf(now - (days - 1) * DAY_MS);
  const { store } = await projectPlace(env, organizationId, project);
  const { anyTraffic, counts } = await store.usageSince(project, [...keys.values()], since);
  if (!anyTraffic) return verdict;
  const totals = usageTotals(counts);
  const downgrade = config.usage?.unusedBreaks === "warning";
  const moved = new Map<string, number>();
  const violations = verdict.violations.map((violation) => {
    if (!breaks(violation)) return violation;
    const usage = usageEvidence(violation.location, totals, days);
    if (!usage) return violation;
    if (downgrade && violation.severity === "error" && usage.exchanges === 0) {
      moved.set(violation.rule, (moved.get(violation.rule) ?? 0) + 1);
      return { ...violation, severity: "warning" as const, usage };
    }
    return { ...violation, usage };
  });
  if (moved.size === 0) return { ...verdict, violations };
  // Only listed violations can be judged by usage; the ones past a rule's listing cap stay errors.
  const summary: RuleSummary[] = [];
  for (const entry of verdict.summary) {
    const count = entry.severity === "error" ? entry.count - (moved.get(entry.rule) ?? 0) : entry.count;
    if (count > 0) summary.push({ ...entry, count });
    if (entry.severity === "error" && moved.has(entry.rule))
      summary.push({ rule: entry.rule, severity: "warning", count: moved.get(entry.rule)! });
  }
  return { ...verdict, violations, summary, approved: !summary.some((entry) => entry.severity === "error") };
}

/** The ingest route's body: counts of one day, as a gateway or the implementation's middleware aggregates them. */
export const usageIngestRequest = z
  .object({
    day: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "a day as YYYY-MM-DD (UTC)")
      .describe("The day the counts are of (UTC)"),
    counts: z
      .array(
        z
          .object({
            operation: z
              .string()
              .regex(/^[A-Z]+ \/\S*$/, 'an operation as "GET /orders/{id}" (the contract\'s path template)')
              .max(500),
            status: z
              .union([z.number().int().min(100).max(599), z.string().regex(/^[1-5]\d\d$/)])
              .optional()
              .describe("The response status; absent for the operation's and the request's counts"),
            field: z
              .string()
              .max(500)
              .regex(
                /^(|parameter:(query|header|path|cookie):[^\s]+|request:\/\S*|response:\/\S*)$/,
                'empty, "parameter:<in>:<name>", "request:/<property path>" or "response:/<property path>"',
              )
              .optional(),
            count: z.number().int().positive().max(1_000_000_000),
          })
          .strict(),
      )
      .min(1)
      .max(MAX_USAGE_COUNTS),
  })
  .strict();

export type UsageIngest = z.infer<typeof usageIngestRequest>;

/** The ingest body as index counts, or what to fix. */
export function usageCountsOf(body: UsageIngest, now = Date.now()): { counts: UsageCount[] } | { problem: string } {
  const time = Date.parse(`${body.day}T00:00:00Z`);
  if (Number.isNaN(time)) return { problem: `day ${body.day} is not a date` };
  if (time > now) return { problem: `day ${body.day} is in the future` };
  if (time < now - USAGE_KEPT_DAYS * DAY_MS)
    return { problem: `day ${body.day} is more than ${USAGE_KEPT_DAYS} days ago, older than the index keeps` };
  const counts: UsageCount[] = [];
  for (const [index, entry] of body.counts.entries()) {
    const operation = usageOperation(entry.operation);
    if (!operation) return { problem: `counts.${index}.operation is not "METHOD /path"` };
    const field = entry.field ?? "";
    const status = entry.status === undefined ? "" : String(entry.status);
    if (field.startsWith("response:") && status === "")
      return { problem: `counts.${index}: a response property needs the status it was seen with` };
    counts.push({ operation, status, field, count: entry.count });
  }
  return { counts };
}

/** Stores one day's counts for the project (a day sent again replaces its counts); the number stored. */
export async function recordUsageCounts(
  caller: ContractsCaller,
  project: string,
  day: string,
  counts: readonly UsageCount[],
): Promise<number> {
  const stored = await (await projectStoreOf(caller, project)).recordUsage(project, day, counts);
  if (!stored.ok) throw storeFailure(stored, project);
  return stored.counts;
}
