// BENCHMARKS.md is a page of headline rows with a chart drawn from them (bench/headlines.ts): the table parses, its
// "Met" column agrees with the ratio and the target, the committed chart is the one the table draws, and the
// scripts' updates replace rows by what they measure.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { chartOf, isMet, mergeHeadlines, readHeadlines, type Headline } from "../../bench/headlines";

const root = resolve(import.meta.dirname, "../..");
const page = readFileSync(resolve(root, "BENCHMARKS.md"), "utf8");

describe("the headline page", () => {
  it("parses, and each row's Met column agrees with its ratio and target", () => {
    const rows = readHeadlines(page);
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const row of rows) {
      const line = page.split("\n").find((text) => text.startsWith(`| ${row.measure} |`))!;
      expect(line, row.measure).toContain(isMet(row) ? "| met |" : "| **not met** |");
      expect(Number.isFinite(row.ratio)).toBe(true);
    }
  });

  it("shows the chart the table draws (npm run bench:chart after editing the table by hand)", () => {
    expect(page).toContain("![Each benchmark ratio as a share of its target](docs/img/benchmark-ratios.svg)");
    expect(readFileSync(resolve(root, "docs/img/benchmark-ratios.svg"), "utf8")).toBe(chartOf(readHeadlines(page)));
  });

  it("is a page, not a diary: the full tables and the notes live in docs/", () => {
    expect(page.split("\n").length).toBeLessThan(60);
    expect(readFileSync(resolve(root, "docs/benchmark-results.md"), "utf8")).toMatch(
      /<!-- bench:verdict start -->[\s\S]*<!-- bench:mcp end -->/,
    );
  });
});

describe("updates", () => {
  const row = (measure: string, ratio: number): Headline => ({
    measure,
    ratio,
    target: { op: "<=", value: 1.1 },
    spread: "1.0-1.2 (4 rounds)",
    run: "2026-12-03, `npm run bench:mcp`",
  });

  it("replace a row by what it measures, keep the others in order, append new ones", () => {
    const merged = mergeHeadlines([row("a", 1), row("b", 2)], [row("b", 1.05), row("c", 0.9)]);
    expect(merged.map((entry) => [entry.measure, entry.ratio])).toEqual([
      ["a", 1],
      ["b", 1.05],
      ["c", 0.9],
    ]);
  });

  it("draw bars that cross the target line only for missed targets, with every label escaped", () => {
    const svg = chartOf([
      row("met <fine> & well", 0.5),
      { ...row("throughput", 0.7), target: { op: ">=", value: 0.8 } },
    ]);
    expect(svg).toContain("met &lt;fine&gt; &amp; well");
    expect(svg).not.toContain("<fine>");
    expect(svg.match(/fill="#2e7d32"/g)).toHaveLength(1);
    expect(svg.match(/fill="#c62828"/g)).toHaveLength(1);
  });
});
