/**
 * The overview's numbers: tool calls per tool per day, and per day the calls that did not end ok (refused by
 * scope or policy, rate-limited, invalid input, failed upstream), over the last DAYS UTC days. One bounded
 * query to the organization's audit store: at most MAX_RECORDS records per page view, the newest first, and
 * the page says when the cap cut the window short.
 */
import type { Env } from "../../env";
import type { AuditOutcome } from "../../audit/record";
import { recentToolRecords } from "../../audit/query";

export const DAYS = 7;
/** The audit store's own page limit, so one RPC answers the whole view. */
export const MAX_RECORDS = 500;
const DAY_MS = 86_400_000;

export interface ToolActivity {
  /** `YYYY-MM-DD` (UTC), oldest first, today last. */
  days: string[];
  /** Calls per tool, one count per day; tools with most calls first. */
  tools: Array<{ tool: string; perDay: number[]; total: number }>;
  /** Calls per day whose outcome was not ok. */
  refusedPerDay: number[];
  /** Refused or failed calls of the window by outcome, most first. */
  refusedByOutcome: Array<{ outcome: AuditOutcome; count: number }>;
  totalCalls: number;
  /** Set when more records matched than MAX_RECORDS: counts start at this time (ISO), not at the first day. */
  cutAt: string | null;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function toolActivity(env: Env, organizationId: string, now = Date.now()): Promise<ToolActivity> {
  const today = Date.parse(`${dayOf(now)}T00:00:00Z`);
  const from = today - (DAYS - 1) * DAY_MS;
  const days = Array.from({ length: DAYS }, (_, i) => dayOf(from + i * DAY_MS));
  const page = await recentToolRecords(env, organizationId, from, MAX_RECORDS);
  const perTool = new Map<string, number[]>();
  const refusedPerDay = days.map(() => 0);
  const byOutcome = new Map<AuditOutcome, number>();
  let totalCalls = 0;
  for (const record of page.events) {
    const day = days.indexOf(record.time.slice(0, 10));
    if (day < 0) continue;
    totalCalls += 1;
    const counts = perTool.get(record.target) ?? days.map(() => 0);
    counts[day]! += 1;
    perTool.set(record.target, counts);
    if (record.outcome !== "ok") {
      refusedPerDay[day]! += 1;
      byOutcome.set(record.outcome, (byOutcome.get(record.outcome) ?? 0) + 1);
    }
  }
  const tools = [...perTool.entries()]
    .map(([tool, perDay]) => ({ tool, perDay, total: perDay.reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.total - a.total || a.tool.localeCompare(b.tool));
  const oldest = page.events[page.events.length - 1];
  return {
    days,
    tools,
    refusedPerDay,
    refusedByOutcome: [...byOutcome.entries()]
      .map(([outcome, count]) => ({ outcome, count }))
      .sort((a, b) => b.count - a.count),
    totalCalls,
    cutAt: page.next && oldest ? oldest.time : null,
  };
}
