// The README's rule table is the one rule registry (src/engine/rules/rule-registry.ts) as a reader sees it: every
// verdict rule, traffic finding and payload finding once per family, with its default severity and purpose exactly
// as the registry declares them. A rule added, renamed or re-graded without its row (or a row left behind) fails
// here, with the rows that differ; so do ids that break the naming scheme and aliases that name nothing.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalRuleId, RULE_CATALOG } from "../../src/engine/rules/rule-registry";
import { allRules } from "../../src/engine/rules/index";

const root = join(import.meta.dirname, "..", "..");

interface Row {
  id: string;
  kind: string;
  direction: string;
  area: string;
  severity: string;
  purpose: string;
}

function readmeRows(): Row[] {
  const readme = readFileSync(join(root, "docs/rules.md"), "utf8");
  const section = readme.split(/^## Conformance rules$/m)[1]?.split(/^## /m)[0] ?? "";
  const rows: Row[] = [];
  for (const line of section.split("\n")) {
    const match =
      /^\| `([a-z0-9-]+)` \| (conformance|constitution|traffic|payload) \| ([a-z]+) \| ([a-z ]+) \| (error|warning|info) \| (.*) \|$/.exec(
        line,
      );
    if (match)
      rows.push({
        id: match[1]!,
        kind: match[2]!,
        direction: match[3]!,
        area: match[4]!,
        severity: match[5]!,
        purpose: match[6]!,
      });
  }
  return rows;
}

describe("README rule table", () => {
  it("lists every registered rule once per family, with its direction, area, default severity and purpose, and nothing else", () => {
    const rows = readmeRows();
    expect(rows.length).toBeGreaterThan(0);
    const key = (row: { id: string; kind: string }) => `${row.kind} ${row.id}`;
    const byKey = new Map<string, Row[]>();
    for (const row of rows) byKey.set(key(row), [...(byKey.get(key(row)) ?? []), row]);
    const repeated = [...byKey].filter(([, list]) => list.length > 1).map(([id]) => id);
    expect(repeated, "rules listed more than once").toEqual([]);
    const registered = RULE_CATALOG.map((entry) => ({
      id: entry.id,
      kind: entry.family,
      direction: entry.direction,
      area: entry.area,
      severity: entry.severity,
      purpose: entry.purpose,
    }));
    const missing = registered.filter((rule) => !byKey.has(key(rule))).map(key);
    expect(missing, "registered rules without a README row").toEqual([]);
    const unknown = rows.filter((row) => !registered.some((rule) => key(rule) === key(row))).map(key);
    expect(unknown, "README rows without a registered rule").toEqual([]);
    const differing = registered
      .filter((rule) => JSON.stringify(byKey.get(key(rule))?.[0]) !== JSON.stringify(rule))
      .map((rule) => ({ registry: rule, readme: byKey.get(key(rule))?.[0] }));
    expect(differing, "README rows that differ from the registry").toEqual([]);
  });
});

describe("the rule registry", () => {
  it("holds every verdict rule of rules/index.ts, in registry order", () => {
    expect(
      RULE_CATALOG.filter((entry) => entry.family === "conformance" || entry.family === "constitution").map(
        (entry) => entry.id,
      ),
    ).toEqual(allRules.map((rule) => rule.id));
  });

  it("names findings by one scheme: lowercase words joined by '-', no family prefix, one id per family", () => {
    const offenders = RULE_CATALOG.filter(
      (entry) => !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(entry.id) || /^(exchange|traffic|verdict)-/.test(entry.id),
    ).map((entry) => entry.id);
    expect(offenders).toEqual([]);
    const keys = RULE_CATALOG.map((entry) => `${entry.family} ${entry.id}`);
    expect(keys.filter((id, index) => keys.indexOf(id) !== index)).toEqual([]);
    // The same problem found by two checks has one id: a status code the contract does not declare.
    expect(
      RULE_CATALOG.filter((entry) => entry.id === "undocumented-status-code")
        .map((entry) => entry.family)
        .sort(),
    ).toEqual(["conformance", "payload", "traffic"]);
  });

  it("keeps each earlier id as an alias of exactly one current id, which no current id shadows, and documents it", () => {
    const ids = new Set(RULE_CATALOG.map((entry) => entry.id));
    const aliases = RULE_CATALOG.flatMap((entry) => (entry.aliases ?? []).map((alias) => ({ alias, id: entry.id })));
    expect(aliases.length).toBeGreaterThan(0);
    const readme =
      readFileSync(join(root, "docs/rules.md"), "utf8")
        .split(/^## Conformance rules$/m)[1]
        ?.split(/^## /m)[0] ?? "";
    for (const { alias, id } of aliases) {
      expect(ids.has(alias), `${alias} is an alias and a current id`).toBe(false);
      expect(canonicalRuleId(alias)).toBe(id);
      expect(readme, `docs/rules.md "Conformance rules" names the earlier id ${alias}`).toContain(`\`${alias}\``);
    }
    expect(canonicalRuleId("exchange-status-undocumented")).toBe("undocumented-status-code");
    expect(canonicalRuleId("undocumented-status")).toBe("undocumented-status-code");
    expect(canonicalRuleId("missing-operation")).toBe("missing-operation");
  });
});

describe("rule files that only report shared findings", () => {
  it("say in their header which module holds the logic", () => {
    const dir = join(root, "src", "engine", "rules");
    const silent: string[] = [];
    for (const name of readdirSync(dir).filter(
      (file) => file.endsWith(".ts") && file !== "rule.ts" && file !== "index.ts",
    )) {
      const source = readFileSync(join(dir, name), "utf8");
      const reportsShared = /change\.kind|reportResponseChanges\(|reportSchemaChanges\(|MediaTypeGaps\(pair\)/.test(
        source,
      );
      const header = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export const/.exec(source)?.[1] ?? "";
      if (reportsShared && !/diff\/[a-z-]+\.ts/.test(header)) silent.push(name);
    }
    expect(silent, "rule files whose header does not name the module with their logic").toEqual([]);
  });
});
