/**
 * Pictures for the console, drawn on the server as inline SVG (no script, nothing to load): a project's verdict
 * history (each snapshot's outcome, one lane per contract version, in upload order) and a verdict's violations
 * grouped by operation and rule. Each is an image with a title and a text description a screen reader reads,
 * scales to the width it is given (375 px included: labels sit on their own line above each bar), and every
 * piece of document text in it goes through the same escaping as the HTML.
 */
import type { SnapshotRecord } from "../../contracts/store/records";
import type { Violation } from "../../engine";
import { html, type SafeHtml } from "../../lib/html";

export const WIDTH = 340;
const OK = "#1a7f37";
export const BAD = "#b42318";
export const INK = "#15171a";
export const GRID = "#d9dde3";

let nextId = 0;
const uniqueId = (prefix: string) => `${prefix}-${(nextId = (nextId + 1) % 1_000_000)}`;

/** An SVG image of WIDTH by `height` user units with its title, description and a visible caption. */
export function figure(
  titleText: string,
  description: string,
  height: number,
  body: SafeHtml,
  caption: string,
): SafeHtml {
  const id = uniqueId("chart");
  return html`<figure class="chart" style="margin:0 0 1rem"><svg role="img" aria-labelledby="${id}-t ${id}-d" viewBox="0 0 ${WIDTH} ${height}" width="100%" style="max-width:40rem;height:auto" xmlns="http://www.w3.org/2000/svg" font-family="system-ui,sans-serif" font-size="12"><title id="${id}-t">${titleText}</title><desc id="${id}-d">${description}</desc>${body}</svg><figcaption class="muted">${caption}</figcaption></figure>`;
}

/**
 * Verdict history: the newest `snapshots` (any order), oldest left. A lane per contract version they were
 * judged against; a filled circle is approved, a cross rejected, a ring not checked.
 */
export function verdictHistoryChart(snapshots: readonly SnapshotRecord[]): SafeHtml {
  if (snapshots.length === 0) return html``;
  const ordered = [...snapshots].sort((a, b) => a.number - b.number);
  const versions = [...new Set(ordered.map((s) => s.contractVersion))].sort((a, b) => b - a);
  const lane = 30;
  const left = 36;
  const top = 8;
  const height = top + versions.length * lane + 22;
  const step = ordered.length > 1 ? (WIDTH - left - 12) / (ordered.length - 1) : 0;
  const x = (i: number) => left + (ordered.length > 1 ? i * step : (WIDTH - left) / 2);
  const y = (version: number) => top + versions.indexOf(version) * lane + lane / 2;
  const lanes = versions.map(
    (v) =>
      html`<line x1="${left}" x2="${WIDTH - 4}" y1="${y(v)}" y2="${y(v)}" stroke="${GRID}"/><text x="2" y="${y(v) + 4}" fill="${INK}">v${v}</text>`,
  );
  const marks = ordered.map((s, i) => {
    const cx = x(i);
    const cy = y(s.contractVersion);
    const label = `snapshot ${s.number} against contract v${s.contractVersion}: ${s.approved === null ? "not checked" : s.approved ? "approved" : "rejected"}`;
    if (s.approved === true)
      return html`<circle cx="${cx}" cy="${cy}" r="6" fill="${OK}"><title>${label}</title></circle>`;
    if (s.approved === false)
      return html`<path d="M${cx - 5} ${cy - 5}L${cx + 5} ${cy + 5}M${cx + 5} ${cy - 5}L${cx - 5} ${cy + 5}" stroke="${BAD}" stroke-width="3"><title>${label}</title></path>`;
    return html`<circle cx="${cx}" cy="${cy}" r="5" fill="none" stroke="${INK}"><title>${label}</title></circle>`;
  });
  const first = ordered[0] as SnapshotRecord;
  const last = ordered[ordered.length - 1] as SnapshotRecord;
  const axis = html`<text x="${left}" y="${height - 4}" fill="${INK}">#${first.number}</text><text x="${WIDTH - 4}" y="${height - 4}" fill="${INK}" text-anchor="end">#${last.number}</text>`;
  const approved = ordered.filter((s) => s.approved === true).length;
  const rejected = ordered.filter((s) => s.approved === false).length;
  const perVersion = versions.map((v) => {
    const of = ordered.filter((s) => s.contractVersion === v);
    return `v${v}: ${of.filter((s) => s.approved === true).length} approved, ${of.filter((s) => s.approved === false).length} rejected`;
  });
  return figure(
    "Verdict history of the latest snapshots",
    `${ordered.length} snapshots from #${first.number} to #${last.number}: ${approved} approved, ${rejected} rejected. By contract version: ${perVersion.join("; ")}.`,
    height,
    html`${lanes}${marks}${axis}`,
    `Snapshots #${first.number} to #${last.number}, oldest left, one lane per contract version they were judged against: ● approved, ✕ rejected.`,
  );
}

/** How many violations each (operation, rule) pair has, largest first. */
export function violationGroups(
  violations: readonly Violation[],
): Array<{ operation: string; rule: string; count: number; errors: number }> {
  const groups = new Map<string, { operation: string; rule: string; count: number; errors: number }>();
  for (const violation of violations) {
    const hash = violation.location.indexOf("#");
    const head = hash < 0 ? violation.location : violation.location.slice(0, hash);
    const operation = /^[A-Z]+ \//.test(head) ? head : "(document)";
    const key = `${operation}\u0000${violation.rule}`;
    const group = groups.get(key) ?? { operation, rule: violation.rule, count: 0, errors: 0 };
    group.count += 1;
    if (violation.severity === "error") group.errors += 1;
    groups.set(key, group);
  }
  return [...groups.values()].sort(
    (a, b) => b.count - a.count || a.operation.localeCompare(b.operation) || a.rule.localeCompare(b.rule),
  );
}

const MAX_BARS = 12;

/** A verdict's listed violations as one bar per operation and rule (the largest twelve). */
export function violationsChart(violations: readonly Violation[]): SafeHtml {
  const groups = violationGroups(violations);
  if (groups.length === 0) return html``;
  const shown = groups.slice(0, MAX_BARS);
  const most = Math.max(...shown.map((g) => g.count));
  const row = 34;
  const bars = shown.map((g, i) => {
    const y = i * row;
    const width = Math.max(3, Math.round(((WIDTH - 40) * g.count) / most));
    const label = `${g.operation} · ${g.rule}`;
    const cut = label.length > 54 ? `${label.slice(0, 53)}…` : label;
    return html`<text x="0" y="${y + 12}" fill="${INK}">${cut}<title>${label}</title></text><rect x="0" y="${y + 17}" width="${width}" height="10" fill="${g.errors > 0 ? BAD : "#8a5a00"}"/><text x="${width + 4}" y="${y + 26}" fill="${INK}">${g.count}</text>`;
  });
  const description = shown.map((g) => `${g.operation}, ${g.rule}: ${g.count}`).join("; ");
  return figure(
    "Violations by operation and rule",
    `${groups.length} groups${groups.length > shown.length ? `, the largest ${shown.length} drawn` : ""}: ${description}.`,
    shown.length * row + 4,
    html`${bars}`,
    `One bar per operation and rule${groups.length > shown.length ? ` (the largest ${shown.length} of ${groups.length})` : ""}; red: errors.`,
  );
}
