import { describe, expect, it } from "vitest";
import { getConformanceConfig, loadConformanceConfig } from "../../../src/engine/verdict/config";
import { checkConformance, checkConstitution } from "../../../src/engine/engine";
import { renderVerdictMarkdown } from "../../../src/engine/formats/markdown";
import { allRules, conformanceRules, constitutionRules, rulesById } from "../../../src/engine/rules/index";
import { missingOperation } from "../../../src/engine/rules/missing-operation";
import { openapi, responses } from "./harness";

const contract = openapi({
  "/orders": {
    get: {
      responses: responses({
        "200": { type: "array", items: { type: "object", properties: { id: { type: "string" } } } },
      }),
    },
  },
  "/orders/{id}": {
    get: {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      responses: responses({ "200": { type: "object", properties: { id: { type: "string" } } }, "404": null }),
    },
  },
});
const snapshot = openapi({
  "/orders": {
    get: {
      responses: responses({
        "200": { type: "array", items: { type: "object", properties: { id: { type: "integer" } } } },
        "418": null,
      }),
    },
  },
  "/health": { get: { responses: responses({ "200": null }) } },
  "/metrics": { get: { responses: responses({ "200": null }) } },
});

const files = (conformance: Record<string, unknown>, constitution: Record<string, unknown> = { rules: {} }) => ({
  "conformance.json": conformance,
  "constitution.json": constitution,
});

describe("registry", () => {
  it("is frozen, ordered, with unique ids and complete metadata", () => {
    expect(Object.isFrozen(allRules)).toBe(true);
    expect(new Set(allRules.map((rule) => rule.id)).size).toBe(allRules.length);
    for (const rule of allRules) {
      expect(rule.id).toMatch(/^[a-z]+(-[a-z0-9]+)*$/);
      expect(["error", "warning", "info"]).toContain(rule.defaultSeverity);
      expect(rule.purpose.length).toBeGreaterThan(10);
      expect(rule.enforces.length).toBeGreaterThan(5);
    }
    expect(conformanceRules.slice(0, 3).map((rule) => rule.id)).toEqual([
      "missing-operation",
      "undocumented-operation",
      "missing-status-code",
    ]);
    expect(constitutionRules.length).toBeGreaterThanOrEqual(3);
  });

  it("freezes every rule object and offers no way to change the id lookup", () => {
    for (const rule of allRules) expect(Object.isFrozen(rule), rule.id).toBe(true);
    // The rule module's own export is the same object, so importing it directly does not bypass the freeze.
    expect(rulesById.get("missing-operation")).toBe(missingOperation);
    // ES modules run in strict mode: assigning to a frozen object's property throws.
    expect(() => {
      (missingOperation as { defaultSeverity: string }).defaultSeverity = "off";
    }).toThrow(TypeError);
    expect(missingOperation.defaultSeverity).toBe("error");
    expect(loadConformanceConfig(files({ rules: {} })).severities.get("missing-operation")).toBe("error");

    const lookup = rulesById as unknown as Partial<Map<string, unknown>>;
    expect(lookup.set).toBeUndefined();
    expect(lookup.delete).toBeUndefined();
    expect(lookup.clear).toBeUndefined();
    expect(Object.isFrozen(rulesById)).toBe(true);
    expect(rulesById.size).toBe(allRules.length);
    expect([...rulesById.keys()]).toEqual(allRules.map((rule) => rule.id));
  });
});

describe("checkConformance", () => {
  it("builds a verdict: precise locations, severities, summary by rule, approved only without errors", () => {
    const verdict = checkConformance(contract, snapshot, loadConformanceConfig(files({ rules: {} })));
    expect(verdict.violations.map(({ rule, severity, location }) => ({ rule, severity, location }))).toEqual([
      { rule: "missing-operation", severity: "error", location: "GET /orders/{id}" },
      { rule: "undocumented-operation", severity: "error", location: "GET /health" },
      { rule: "undocumented-operation", severity: "error", location: "GET /metrics" },
      { rule: "undocumented-status-code", severity: "warning", location: "GET /orders#/responses/418" },
      {
        rule: "response-type",
        severity: "error",
        location: "GET /orders#/responses/200/content/application~1json/schema/items/properties/id",
      },
    ]);
    expect(verdict.summary).toEqual([
      { rule: "missing-operation", severity: "error", count: 1 },
      { rule: "undocumented-operation", severity: "error", count: 2 },
      { rule: "undocumented-status-code", severity: "warning", count: 1 },
      { rule: "response-type", severity: "error", count: 1 },
    ]);
    expect(verdict).toMatchObject({ approved: false, totalViolations: 5 });
  });

  it("applies configured severities, 'off' and exemptions; approved when only warnings remain", () => {
    const config = loadConformanceConfig(
      files({
        rules: { "missing-operation": "warning", "response-type": "info", "undocumented-status-code": "off" },
        exemptions: [
          { rule: "undocumented-operation", operation: "GET /health", reason: "platform probe" },
          { rule: "*", operation: "* /metrics/**", reason: "scraped by Prometheus" },
        ],
      }),
    );
    const verdict = checkConformance(contract, snapshot, config);
    expect(verdict.violations.map(({ rule, severity }) => `${rule}:${severity}`)).toEqual([
      "missing-operation:warning",
      "response-type:info",
    ]);
    expect(verdict.approved).toBe(true);
  });

  it("includes the constitution on the snapshot, and checkConstitution flags a contract that breaks it", () => {
    const constitution = { rules: { "forbidden-path-prefix": { severity: "error", prefixes: ["/metrics"] } } };
    const config = loadConformanceConfig(
      files(
        {
          rules: {
            "undocumented-operation": "off",
            "missing-operation": "off",
            "response-type": "off",
            "undocumented-status-code": "off",
          },
        },
        constitution,
      ),
    );
    const verdict = checkConformance(contract, snapshot, config);
    expect(verdict.violations.map(({ rule, location }) => `${rule} ${location}`)).toEqual([
      "forbidden-path-prefix GET /metrics",
    ]);
    expect(verdict.approved).toBe(false);
    expect(checkConstitution(contract, config).approved).toBe(true);
    expect(checkConstitution(snapshot, config).summary).toEqual([
      { rule: "forbidden-path-prefix", severity: "error", count: 1 },
    ]);
  });

  it("the bundled policies load and check a document", () => {
    const config = getConformanceConfig();
    expect(config.severities.get("missing-operation")).toBe("error");
    const verdict = checkConstitution(
      openapi({ "/internal/jobs": { post: { responses: responses({ "202": null }) } } }),
      config,
    );
    expect(verdict.violations.map((violation) => violation.rule)).toEqual(
      expect.arrayContaining(["forbidden-path-prefix", "write-operation-problem-json", "operation-security"]),
    );
  });
});

describe("configuration errors name the file and the field", () => {
  it.each([
    [
      files({ rules: { "missing-operaton": "error" } }),
      "policies/conformance.json: rules.missing-operaton: unknown conformance rule",
    ],
    [files({ rules: { "missing-operation": "fatal" } }), "policies/conformance.json: rules.missing-operation"],
    [
      files({ rules: {}, exemptions: [{ rule: "missing-operation", operation: "/orders", reason: "because" }] }),
      "policies/conformance.json: exemptions.0.operation",
    ],
    [
      files({ rules: {}, exemptions: [{ rule: "nope", operation: "GET /orders", reason: "because" }] }),
      'policies/conformance.json: exemptions.0.rule: unknown rule "nope"',
    ],
    [
      files({ rules: {} }, { rules: { "max-path-depth": { maxSegments: 0 } } }),
      "policies/constitution.json: rules.max-path-depth.maxSegments",
    ],
    [
      files({ rules: {} }, { rules: { "operation-id-pattern": { pattern: "([" } } }),
      "policies/constitution.json: rules.operation-id-pattern.pattern: a valid regular expression",
    ],
    [
      files({ rules: {} }, { rules: { "no-such-rule": {} } }),
      "policies/constitution.json: rules.no-such-rule: unknown constitution rule",
    ],
    [{ "conformance.json": { rules: {} } }, "policies/constitution.json: (file): file is missing"],
  ])("%#", (input, message) => {
    expect(() => loadConformanceConfig(input)).toThrow(message);
  });
});

describe("renderVerdictMarkdown", () => {
  it("renders outcome, summary and every violation, escaping text from documents", () => {
    const verdict = checkConformance(contract, snapshot, loadConformanceConfig(files({ rules: {} })));
    const markdown = renderVerdictMarkdown(verdict, {
      project: "orders-api",
      contractVersion: "003-orders",
      snapshot: "abc123",
    });
    expect(markdown).toContain("## Arbiter conformance: ❌ Rejected");
    expect(markdown).toContain("Project: `orders-api` · contract `003-orders` · snapshot `abc123`");
    expect(markdown).toContain("| `undocumented-operation` | Error | 2 |");
    expect(markdown).toContain("| Error | `missing-operation` | `GET /orders/{id}` |");
    const hostile = renderVerdictMarkdown(
      {
        approved: false,
        totalViolations: 1,
        summary: [{ rule: "x", severity: "error", count: 1 }],
        violations: [
          {
            rule: "x",
            severity: "error",
            location: "GET /a|b`c",
            message: "<img src=x onerror=alert(1)> | *bold*\nnext",
          },
        ],
      },
      { project: "p" },
    );
    expect(hostile).not.toContain("<img");
    expect(hostile).toContain("&lt;img src\\=x onerror\\=alert\\(1\\)&gt; \\| \\*bold\\* next");
    expect(hostile).toContain("`` GET /a\\|b`c ``");
    expect(
      renderVerdictMarkdown({ approved: true, totalViolations: 0, violations: [], summary: [] }, { project: "p" }),
    ).toContain("no violations");
  });

  it("says plainly how many violations of each severity, and links the full verdict when the listing is cut", () => {
    const violations = Array.from({ length: 203 }, (_, i) => ({
      rule: i < 2 ? "w" : "x",
      severity: (i < 2 ? "warning" : "error") as "warning" | "error",
      location: `GET /p${i}`,
      message: "m",
    }));
    const summary = [
      { rule: "w", severity: "warning" as const, count: 2 },
      { rule: "x", severity: "error" as const, count: 201 },
    ];
    const verdict = { approved: false, totalViolations: 203, violations, summary };
    const markdown = renderVerdictMarkdown(verdict, {
      project: "p",
      subject: "snapshot",
      title: "snapshot #3",
      link: "https://arbiter.example/api/v1/projects/p/verdicts/9",
    });
    expect(markdown).toContain(
      "203 violations: 201 errors, 2 warnings, 0 info. Errors reject the implementation snapshot.",
    );
    expect(markdown).toContain(
      "The first 200 violations are listed here; 3 more are not: [read the full verdict](https://arbiter.example/api/v1/projects/p/verdicts/9).",
    );
    const contract = renderVerdictMarkdown(
      { approved: true, totalViolations: 0, violations: [], summary: [] },
      { project: "p", subject: "contract" },
    );
    expect(contract).not.toContain("implementation");
  });
});
