/**
 * The headline page, BENCHMARKS.md: one row per target (what is measured, the ratio, the target, met or not, the
 * spread, when and by which command), and a chart of every ratio against its target (docs/img/benchmark-ratios.svg).
 * Each benchmark script updates the rows it owns, by their first cell, and leaves the others; the full tables go
 * to docs/benchmark-results.md and the method and history to docs/benchmarks.md.
 * `npm run bench:chart` redraws the chart from the table alone.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

export interface Headline {
  /** What is measured; the row's key. */
  measure: string;
  /** The ratio measured (the median). */
  ratio: number;
  /** The target: the ratio must stay at most (`<=`) or at least (`>=`) this value. */
  target: { op: "<=" | ">="; value: number };
  /** The spread of the ratio over the rounds, e.g. "0.37-0.52 (middle half)". */
  spread: string;
  /** When and how: e.g. "2026-12-02, `npm run bench`". */
  run: string;
}

/** The full tables of the last run, one section per script between its markers. */
export const RESULTS = fileURLToPath(new URL("../docs/benchmark-results.md", import.meta.url));

/** Replaces the section between `<!-- name start -->` and `<!-- name end -->` of `path`, or appends it. */
export function writeSection(path: string, name: string, section: string): void {
  const current = existsSync(path) ? readFileSync(path, "utf8") : "";
  const marked = new RegExp(`<!-- ${name} start -->[\\s\\S]*?<!-- ${name} end -->`);
  writeFileSync(
    path,
    marked.test(current) ? current.replace(marked, () => section) : `${current.trimEnd()}\n\n${section}\n`,
  );
}

const PAGE = fileURLToPath(new URL("../BENCHMARKS.md", import.meta.url));
const CHART = fileURLToPath(new URL("../docs/img/benchmark-ratios.svg", import.meta.url));
const START = "<!-- headlines start -->";
const END = "<!-- headlines end -->";
const HEADER = ["| Measured | Ratio | Target | Met | Spread | Run |", "| --- | ---: | ---: | --- | --- | --- |"];

export function isMet(row: Pick<Headline, "ratio" | "target">): boolean {
  return row.target.op === "<=" ? row.ratio <= row.target.value : row.ratio >= row.target.value;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim();
}

function rowOf(row: Headline): string {
  const target = `${row.target.op === "<=" ? "≤" : "≥"} ${row.target.value.toFixed(2)}`;
  return `| ${cell(row.measure)} | ${row.ratio.toFixed(2)} | ${target} | ${isMet(row) ? "met" : "**not met**"} | ${cell(row.spread)} | ${cell(row.run)} |`;
}

/** The rows of the headline table in `page` (the inverse of rowOf). */
export function readHeadlines(page: string): Headline[] {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`BENCHMARKS.md has no headline table between ${START} and ${END}`);
  return page
    .slice(start + START.length, end)
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| Measured") && !line.startsWith("| ---"))
    .map((line) => {
      const cells = line
        .slice(2, -2)
        .split(/ (?<!\\)\| /)
        .map((text) => text.replace(/\\\|/g, "|"));
      const [measure, ratio, target, , spread, run] = cells as [string, string, string, string, string, string];
      const match = /^(≤|≥) ([0-9.]+)$/.exec(target);
      if (!match) throw new Error(`BENCHMARKS.md: the target "${target}" of "${measure}" is not "≤ n" or "≥ n"`);
      return {
        measure,
        ratio: Number(ratio),
        target: { op: match[1] === "≤" ? "<=" : ">=", value: Number(match[2]) },
        spread,
        run,
      };
    });
}

/** Replaces the rows whose measure matches one of `rows` (others are kept, in order; new ones are appended). */
export function mergeHeadlines(existing: readonly Headline[], rows: readonly Headline[]): Headline[] {
  const merged = existing.map((row) => rows.find((update) => update.measure === row.measure) ?? row);
  for (const row of rows) if (!merged.some((kept) => kept.measure === row.measure)) merged.push(row);
  return merged;
}

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * A horizontal bar per row: how far the ratio is from its target, as the share of the target used (ratio / target
 * for an upper bound, target / ratio for a lower one), so every target sits on the same line at 1.0 and a bar that
 * crosses it is a missed target.
 */
export function chartOf(rows: readonly Headline[]): string {
  const width = 900;
  const labelWidth = 500;
  const barArea = width - labelWidth - 120;
  const rowHeight = 26;
  const top = 40;
  const height = top + rows.length * rowHeight + 40;
  const scaleMax = Math.max(1.6, ...rows.map((row) => share(row) * 1.05));
  const x = (value: number) => labelWidth + (Math.min(value, scaleMax) / scaleMax) * barArea;
  const bars = rows.map((row, index) => {
    const y = top + index * rowHeight;
    const used = share(row);
    const fill = isMet(row) ? "#2e7d32" : "#c62828";
    const label = row.measure.length > 80 ? `${row.measure.slice(0, 79)}…` : row.measure;
    const figure = `${row.ratio.toFixed(2)} (${row.target.op === "<=" ? "≤" : "≥"} ${row.target.value.toFixed(2)})`;
    return [
      `<text x="${labelWidth - 8}" y="${y + 17}" text-anchor="end" font-size="11">${escapeXml(label)}</text>`,
      `<rect x="${labelWidth}" y="${y + 5}" width="${(x(used) - labelWidth).toFixed(1)}" height="16" fill="${fill}"><title>${escapeXml(`${row.measure}: ${row.ratio.toFixed(2)} (${row.spread}); ${isMet(row) ? "met" : "not met"}`)}</title></rect>`,
      `<text x="${(x(used) + 4).toFixed(1)}" y="${y + 17}" font-size="11">${escapeXml(figure)}</text>`,
    ].join("");
  });
  const line = x(1);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" role="img" aria-label="Each benchmark ratio as a share of its target">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="10" y="22" font-size="14" font-weight="bold">Each ratio as the share of its target it uses (dashed line: the target; green met, red not met)</text>`,
    ...bars,
    `<line x1="${line.toFixed(1)}" y1="${top - 4}" x2="${line.toFixed(1)}" y2="${top + rows.length * rowHeight + 4}" stroke="#000" stroke-dasharray="4 3"/>`,
    `<text x="${line.toFixed(1)}" y="${top + rows.length * rowHeight + 20}" text-anchor="middle" font-size="11">target</text>`,
    "</svg>",
    "",
  ].join("\n");
}

function share(row: Headline): number {
  return row.target.op === "<=" ? row.ratio / row.target.value : row.target.value / Math.max(row.ratio, 1e-9);
}

/** Writes `rows` into BENCHMARKS.md's headline table and redraws the chart. */
export function updateHeadlines(rows: readonly Headline[]): void {
  const page = readFileSync(PAGE, "utf8");
  const merged = mergeHeadlines(readHeadlines(page), rows);
  const table = [START, ...HEADER, ...merged.map(rowOf), END].join("\n");
  const written = page.slice(0, page.indexOf(START)) + table + page.slice(page.indexOf(END) + END.length);
  writeFileSync(PAGE, written);
  // From the table as written (its ratios rounded), as `npm run bench:chart` and the page's test draw it.
  drawChart(readHeadlines(written));
}

function drawChart(rows: readonly Headline[]): void {
  mkdirSync(dirname(CHART), { recursive: true });
  writeFileSync(CHART, chartOf(rows));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  drawChart(readHeadlines(readFileSync(PAGE, "utf8")));
  console.log(`drew ${CHART} from BENCHMARKS.md's headline table`);
}
