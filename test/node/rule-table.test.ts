// The README's rule table is the registry as a reader sees it: every rule once, with its kind, default severity
// and purpose exactly as src/engine/rules/index.ts declares them. A rule added, renamed or re-graded without
// its row (or a row left behind) fails here, with the rows that differ.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allRules } from "../../src/engine/rules/index";

const root = join(import.meta.dirname, "..", "..");

interface Row {
  id: string;
  kind: string;
  severity: string;
  purpose: string;
}

function readmeRows(): Row[] {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.split(/^## Conformance rules$/m)[1]?.split(/^## /m)[0] ?? "";
  const rows: Row[] = [];
  for (const line of section.split("\n")) {
    const match = /^\| `([a-z0-9-]+)` \| (conformance|constitution) \| (error|warning|info) \| (.*) \|$/.exec(line);
    if (match) rows.push({ id: match[1]!, kind: match[2]!, severity: match[3]!, purpose: match[4]! });
  }
  return rows;
}

describe("README rule table", () => {
  it("lists every registered rule once, with its kind, default severity and purpose, and nothing else", () => {
    const rows = readmeRows();
    expect(rows.length).toBeGreaterThan(0);
    const byId = new Map<string, Row[]>();
    for (const row of rows) byId.set(row.id, [...(byId.get(row.id) ?? []), row]);
    const repeated = [...byId].filter(([, list]) => list.length > 1).map(([id]) => id);
    expect(repeated, "rules listed more than once").toEqual([]);
    const registered = allRules.map((rule) => ({ id: rule.id, kind: rule.kind, severity: rule.defaultSeverity, purpose: rule.purpose }));
    const missing = registered.filter((rule) => !byId.has(rule.id)).map((rule) => rule.id);
    expect(missing, "registered rules without a README row").toEqual([]);
    const unknown = rows.filter((row) => !registered.some((rule) => rule.id === row.id)).map((row) => row.id);
    expect(unknown, "README rows without a registered rule").toEqual([]);
    const differing = registered.filter((rule) => JSON.stringify(byId.get(rule.id)?.[0]) !== JSON.stringify(rule)).map((rule) => ({ registry: rule, readme: byId.get(rule.id)?.[0] }));
    expect(differing, "README rows that differ from the registry").toEqual([]);
  });
});

describe("rule files that only report shared findings", () => {
  it("say in their header which module holds the logic", () => {
    const dir = join(root, "src", "engine", "rules");
    const silent: string[] = [];
    for (const name of readdirSync(dir).filter((file) => file.endsWith(".ts") && file !== "rule.ts" && file !== "index.ts")) {
      const source = readFileSync(join(dir, name), "utf8");
      const reportsShared = /change\.kind|reportResponseChanges\(|reportSchemaChanges\(|MediaTypeGaps\(pair\)/.test(source);
      const header = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export const/.exec(source)?.[1] ?? "";
      if (reportsShared && !/rules\/support\/[a-z-]+\.ts/.test(header)) silent.push(name);
    }
    expect(silent, "rule files whose header does not name the module with their logic").toEqual([]);
  });
});
