/**
 * SARIF rule help comes from the one rule registry (src/engine/rules/rule-registry.ts): a recorded-traffic finding is
 * described by its traffic entry even where a verdict rule shares its id, and a verdict stored with an earlier id
 * (an alias) still gets its rule's help.
 */
import { describe, expect, it } from "vitest";
import { renderSarif } from "../../../../src/engine/formats/sarif";
import type { VerdictReport } from "../../../../src/engine/formats/report";
import { catalogEntry } from "../../../../src/engine/rules/rule-registry";

function report(subject: VerdictReport["subject"], rule: string): VerdictReport {
  return {
    subject,
    project: "orders",
    title: "run",
    verdict: {
      approved: false,
      totalViolations: 1,
      violations: [
        {
          rule,
          severity: "error",
          location: "GET /orders#exchange/0/response/status",
          message: "status 500 is not declared",
        },
      ],
      summary: [],
    },
  } as unknown as VerdictReport;
}

function descriptor(sarif: Record<string, unknown>) {
  return (
    sarif as { runs: Array<{ tool: { driver: { rules: Array<{ id: string; shortDescription: { text: string } }> } } }> }
  ).runs[0]!.tool.driver.rules[0]!;
}

describe("SARIF rule help from the rule registry", () => {
  it("describes a traffic finding by its traffic entry, not by the verdict rule of the same id", () => {
    const help = descriptor(renderSarif(report("exchanges", "undocumented-status-code")));
    expect(help.shortDescription.text).toBe(catalogEntry("traffic", "undocumented-status-code")!.purpose);
    const verdictHelp = descriptor(renderSarif(report("snapshot", "undocumented-status-code")));
    expect(verdictHelp.shortDescription.text).toBe(catalogEntry("conformance", "undocumented-status-code")!.purpose);
    expect(help.shortDescription.text).not.toBe(verdictHelp.shortDescription.text);
  });

  it("still describes a finding stored under its earlier id", () => {
    const sarif = renderSarif(report("exchanges", "exchange-status-undocumented"));
    const help = descriptor(sarif);
    expect(help.id).toBe("undocumented-status-code");
    expect((sarif as { runs: Array<{ results: Array<{ ruleId: string }> }> }).runs[0]!.results[0]!.ruleId).toBe(
      "undocumented-status-code",
    );
    expect(help.shortDescription.text).toBe(catalogEntry("traffic", "undocumented-status-code")!.purpose);
  });
});
