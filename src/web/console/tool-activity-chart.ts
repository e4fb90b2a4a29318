/**
 * The overview's picture of tool activity (tool-activity.ts): one row per tool with a bar per day, and a red
 * row of the calls that did not end ok. All rows share one scale. Every label sits on its own line above its
 * bars, so the picture reads at 375 px; tool names are escaped like all HTML (the audit trail's targets are
 * data, not markup). A table with the same numbers follows, for screen readers and for exact figures.
 */
import { html, type SafeHtml } from "../../lib/html";
import { BAD, figure, GRID, INK, WIDTH } from "./charts";
import { code, emptyState, scrollTable } from "./components";
import { DAYS, MAX_RECORDS, type ToolActivity } from "./tool-activity";

/** Tools drawn one per row; the rest share the last row. */
const TOOL_ROWS = 6;
const CALLS = "#1f5fbf";
const ROW = 44;
const BAND = 22;
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

interface Row {
  label: string;
  perDay: number[];
  total: number;
  colour: string;
  unit: string;
}

const weekday = (day: string) => WEEKDAYS[new Date(`${day}T00:00:00Z`).getUTCDay()] ?? "";
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function rowsOf(activity: ToolActivity): Row[] {
  const rows: Row[] = activity.tools
    .slice(0, TOOL_ROWS)
    .map((t) => ({ label: t.tool, perDay: t.perDay, total: t.total, colour: CALLS, unit: "calls" }));
  const rest = activity.tools.slice(TOOL_ROWS);
  if (rest.length > 0) {
    const perDay = activity.days.map((_, i) => rest.reduce((sum, t) => sum + (t.perDay[i] ?? 0), 0));
    rows.push({
      label: `${rest.length} other tools`,
      perDay,
      total: perDay.reduce((a, b) => a + b, 0),
      colour: CALLS,
      unit: "calls",
    });
  }
  rows.push({
    label: "refused or failed",
    perDay: activity.refusedPerDay,
    total: activity.refusedPerDay.reduce((a, b) => a + b, 0),
    colour: BAD,
    unit: "calls not ok",
  });
  return rows;
}

function chart(activity: ToolActivity): SafeHtml {
  const rows = rowsOf(activity);
  const most = Math.max(1, ...rows.flatMap((r) => r.perDay));
  const column = WIDTH / DAYS;
  const barWidth = Math.round(column * 0.6);
  const drawn = rows.map((row, r) => {
    const top = r * ROW;
    const base = top + 18 + BAND;
    const bars = row.perDay.flatMap((count, d) => {
      if (count === 0) return [];
      const height = Math.max(2, Math.round((BAND * count) / most));
      const x = Math.round(d * column + (column - barWidth) / 2);
      return html`<rect x="${x}" y="${base - height}" width="${barWidth}" height="${height}" fill="${row.colour}"><title>${row.label}, ${weekday(activity.days[d]!)} ${activity.days[d]!}: ${plural(count, row.unit === "calls" ? "call" : "call not ok", row.unit)}</title></rect>`;
    });
    const label = row.label.length > 44 ? `${row.label.slice(0, 43)}…` : row.label;
    return html`<text x="0" y="${top + 12}" fill="${INK}">${label}: ${row.total}<title>${row.label}: ${plural(row.total, "call", "calls")} in ${DAYS} days</title></text><line x1="0" x2="${WIDTH}" y1="${base + 0.5}" y2="${base + 0.5}" stroke="${GRID}"/>${bars}`;
  });
  const axisTop = rows.length * ROW + 4;
  const axis = activity.days.map((day, d) => {
    const x = Math.round(d * column + column / 2);
    return html`<text x="${x}" y="${axisTop + 10}" fill="${INK}" text-anchor="middle">${weekday(day)}</text><text x="${x}" y="${axisTop + 24}" fill="${INK}" text-anchor="middle">${day.slice(8)}</text>`;
  });
  const first = activity.days[0]!;
  const last = activity.days[DAYS - 1]!;
  const perTool = activity.tools.map((t) => `${t.tool}: ${t.total}`).join("; ");
  const refused = activity.refusedByOutcome.map((o) => `${o.outcome}: ${o.count}`).join("; ");
  const refusedTotal = activity.refusedPerDay.reduce((a, b) => a + b, 0);
  return figure(
    "Tool calls and refusals per day",
    `${first} to ${last} (UTC): ${plural(activity.totalCalls, "tool call", "tool calls")} of ${plural(activity.tools.length, "tool", "tools")}, ${refusedTotal} refused or failed${refused ? ` (${refused})` : ""}. By tool: ${perTool}.`,
    axisTop + 30,
    html`${drawn}${axis}`,
    `One row per tool, one bar per day from ${first} to ${last} (UTC), oldest left, all rows on one scale; red: calls refused or failed.`,
  );
}

function numbers(activity: ToolActivity): SafeHtml {
  const head = ["Tool", ...activity.days.map((d) => `${weekday(d)} ${d.slice(5)}`), "Total"];
  const rows = activity.tools.map(
    (t) => html`<tr><td>${code(t.tool)}</td>${t.perDay.map((n) => html`<td>${n}</td>`)}<td>${t.total}</td></tr>`,
  );
  const refusedTotal = activity.refusedPerDay.reduce((a, b) => a + b, 0);
  rows.push(
    html`<tr><td>refused or failed</td>${activity.refusedPerDay.map((n) => html`<td>${n}</td>`)}<td>${refusedTotal}</td></tr>`,
  );
  return scrollTable("Tool calls per day", head, rows, { compact: true });
}

/** The overview's tool-activity section: picture, the cap note when it applies, and the numbers as a table. */
export function toolActivitySection(activity: ToolActivity): SafeHtml {
  const heading = html`<div class="section-head"><h2 id="activity-heading">Tool calls, last ${DAYS} days</h2><a href="/admin/audit?kind=tool">Tool calls in the audit trail</a></div>`;
  if (activity.totalCalls === 0) {
    return html`<section aria-labelledby="activity-heading">${heading}${emptyState("No tool calls in the last 7 days", "Calls of each tool, and the calls refused or failed, will be drawn here per day.")}</section>`;
  }
  const cut = activity.cutAt
    ? html`<p class="problem" role="note">More than ${MAX_RECORDS} tool calls in ${DAYS} days: only the newest ${MAX_RECORDS} are counted, those since ${activity.cutAt.slice(0, 16).replace("T", " ")} UTC. The audit trail has them all.</p>`
    : html``;
  return html`<section aria-labelledby="activity-heading">${heading}${cut}${chart(activity)}<details><summary>The numbers as a table</summary>${numbers(activity)}</details></section>`;
}
