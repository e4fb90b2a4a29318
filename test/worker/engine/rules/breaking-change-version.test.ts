// breaking-change-version (docs/rules.md "Version discipline"): a contract version that breaks clients of the one
// before without raising info.version's major (its minor under 0.x) gets a finding at #/info/version; a raised
// version, a compatible change or versions that are not semver get none; never in a snapshot's verdict; the
// organization's policy grades it.
import { describe, expect, it } from "vitest";
import { getConformanceConfig, withOrganizationConformance } from "../../../../src/engine/verdict/config";
import { checkConformance, compareContractVersions } from "../../../../src/engine/engine";
import { openapi, responses } from "../harness";

const order = { type: "object", properties: { id: { type: "string" } }, required: ["id"] };
/** Version `version` of the orders API; `breaking` removes GET /orders/{id} (clients of it break). */
function contract(version: string, breaking = false, extra = false) {
  const paths: Record<string, unknown> = {
    "/orders": { get: { responses: responses({ "200": { type: "array", items: order } }) } },
  };
  if (!breaking)
    paths["/orders/{id}"] = {
      get: {
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: responses({ "200": order }),
      },
    };
  if (extra) paths["/health"] = { get: { responses: responses({ "200": null }) } };
  return openapi(paths, { info: { title: "orders", version } });
}

const findings = (before: string, after: string, breaking = true, config = getConformanceConfig()) =>
  compareContractVersions(contract(before), contract(after, breaking), config).violations.filter(
    (violation) => violation.rule === "breaking-change-version",
  );

describe("breaking-change-version", () => {
  it("finds a breaking version that keeps its major, naming both versions and the one to raise to", () => {
    const [finding, ...rest] = findings("1.4.0", "1.5.0");
    expect(rest).toEqual([]);
    expect(finding).toEqual({
      rule: "breaking-change-version",
      severity: "warning",
      location: "#/info/version",
      message:
        "this version breaks clients of the previous one (1 breaking change) but info.version goes from 1.4.0 to 1.5.0: raise it to 2.0.0 or later so clients can tell, or make the changes compatible",
    });
    expect(findings("2.0.0", "2.0.1")).toHaveLength(1);
    // Under 0.x a new minor is the breaking step: a patch is not.
    expect(findings("0.3.1", "0.3.2")[0]?.message).toContain("raise it to 0.4.0");
    // A lower major is no raise either.
    expect(findings("3.0.0", "2.9.0")).toHaveLength(1);
  });

  it("says nothing when the version is raised, when nothing breaks, or when a version is not semver", () => {
    expect(findings("1.4.0", "2.0.0")).toEqual([]);
    expect(findings("v1.4", "v2.0-beta.1")).toEqual([]);
    expect(findings("0.3.1", "0.4.0")).toEqual([]);
    expect(findings("0.3.1", "1.0.0")).toEqual([]);
    // A compatible change (an operation added) keeps its version: fine.
    const added = compareContractVersions(contract("1.4.0"), contract("1.4.0", false, true), getConformanceConfig());
    expect(added.violations.filter((v) => v.rule === "breaking-change-version")).toEqual([]);
    expect(findings("2026-03-10", "2026-04-01")).toEqual([]);
    expect(findings("latest", "1.0.0")).toEqual([]);
  });

  it("never judges a snapshot (an implementation's build version is not the contract's)", () => {
    const verdict = checkConformance(contract("1.4.0"), contract("1.4.0", true), getConformanceConfig());
    expect(verdict.violations.some((violation) => violation.rule === "missing-operation")).toBe(true);
    expect(verdict.violations.some((violation) => violation.rule === "breaking-change-version")).toBe(false);
  });

  it("is graded by the organization's policy: an error rejects the comparison, off removes it", () => {
    const strict = withOrganizationConformance(getConformanceConfig(), "acme", {
      rules: { "breaking-change-version": "error" },
    });
    expect(findings("1.4.0", "1.5.0", true, strict)[0]?.severity).toBe("error");
    const off = withOrganizationConformance(getConformanceConfig(), "acme", {
      rules: { "breaking-change-version": "off" },
    });
    expect(findings("1.4.0", "1.5.0", true, off)).toEqual([]);
    // The rule's own finding is not counted as a break by itself: errors of the rules before it are.
    const raised = compareContractVersions(contract("1.4.0"), contract("2.0.0", true), strict);
    expect(raised.violations.map((violation) => violation.rule)).not.toContain("breaking-change-version");
  });
});
