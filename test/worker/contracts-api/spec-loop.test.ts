/**
 * The spec-driven loop without waiting for CI, over REST at the REST handler (harness.ts): drafts checked and never stored,
 * contract versions compared from the clients' point of view at upload (policy warn for acme, refuse for
 * globex), activation of a breaking version only with allowBreaking, and comparisons of stored or edited
 * contracts. Each answer is checked for its exact findings, and the store for what it (does not) hold.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { callJson, storedAuditRecords } from "./api-helpers";
import { restPrincipal, type Caller } from "../harness";
import { conformingSnapshot, ordersContract, text, violatingSnapshot } from "./fixtures";

let dev: Caller;
let gus: Caller;

const json = { "Content-Type": "application/json" };

/** v2 of the orders contract without GET /orders/{id}: breaks every client that reads one order. */
function withoutGetById(): Record<string, unknown> {
  return violatingSnapshot();
}

async function auditReasons(fromMs: number, target: string): Promise<string[]> {
  return (await storedAuditRecords("acme", fromMs, { target })).map((record) => record.reason);
}

beforeAll(async () => {
  dev = restPrincipal("dev", "contracts.read contracts.write snapshots.write");
  gus = restPrincipal("gus", "contracts.read contracts.write snapshots.write");
});

afterEach(() => vi.restoreAllMocks());

describe("drafts", () => {
  beforeAll(async () => {
    expect((await callJson(dev, "POST", "/projects/loop/contracts", text(ordersContract()), json)).status).toBe(201);
  });

  it("checks a draft against the active contract and stores nothing: no snapshot, no latest, no verdict record", async () => {
    const log = vi.spyOn(console, "log");
    const started = Date.now();
    const rejected = await callJson(dev, "POST", "/projects/loop/drafts", text(violatingSnapshot()), json);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ project: "loop", source: "draft", stored: false, contract: { version: 1 } });
    expect(rejected.body.verdict.approved).toBe(false);
    expect(
      rejected.body.verdict.violations.map((v: { rule: string; location: string }) => `${v.rule} ${v.location}`),
    ).toEqual(["missing-operation GET /orders/{id}"]);
    expect(rejected.body.draft.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const approved = await callJson(dev, "POST", "/projects/loop/drafts", text(conformingSnapshot()), json);
    expect(approved.body.verdict).toMatchObject({ approved: true, totalViolations: 0 });

    const status = await callJson(dev, "GET", "/projects/loop");
    expect(status.body.latestSnapshot).toBeNull();
    expect(status.body.project.snapshotCount).toBe(0);
    expect((await callJson(dev, "GET", "/projects/loop/verdicts")).body.verdicts).toHaveLength(1); // the contract's own
    const reasons = await auditReasons(started, "POST /api/v1/projects/:project/drafts");
    expect(reasons).toEqual([
      `draft ${rejected.body.draft.digest.slice(0, 23)}`,
      `draft ${approved.body.draft.digest.slice(0, 23)}`,
    ]);
    expect(JSON.stringify(log.mock.calls)).not.toContain("createOrder");
  });

  it("names what is wrong with an invalid draft and checks against another version on request", async () => {
    const invalid = await callJson(dev, "POST", "/projects/loop/drafts", "openapi: 3.1.0\ninfo: [", {
      "Content-Type": "application/yaml",
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.code).toBe("invalid_document");
    const unknown = await callJson(
      dev,
      "POST",
      "/projects/loop/drafts?contractVersion=9",
      text(conformingSnapshot()),
      json,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain("no contract version 9");
    const badQuery = await callJson(
      dev,
      "POST",
      "/projects/loop/drafts?contractVersion=zero",
      text(conformingSnapshot()),
      json,
    );
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.error.message).toContain("contractVersion");
    const sarif = await callJson(dev, "POST", "/projects/loop/drafts?format=sarif", text(violatingSnapshot()), json);
    expect(sarif.body.runs[0].results[0].ruleId).toBe("missing-operation");
  });
});

describe("contract evolution", () => {
  it("compares each new version with the active one and reports what breaks clients (warn: it still becomes active)", async () => {
    expect((await callJson(dev, "POST", "/projects/evo/contracts", text(ordersContract()), json)).status).toBe(201);
    const started = Date.now();
    const next = await callJson(dev, "POST", "/projects/evo/contracts?label=drop-get", text(withoutGetById()), json);
    expect(next.status).toBe(201);
    expect(next.body.activated).toBe(true);
    expect(next.body.contract).toMatchObject({
      version: 2,
      active: true,
      // The break, and the version discipline warning: info.version stayed 1.0.0 (docs/rules.md).
      changes: { comparedWithVersion: 1, approved: false, breakingChanges: 1, totalViolations: 2 },
    });
    expect(next.body.breakingChanges).toMatchObject({ comparedWithVersion: 1, count: 1, approved: false });
    expect(next.body.breakingChanges.violations).toEqual([
      expect.objectContaining({ rule: "missing-operation", location: "GET /orders/{id}", severity: "error" }),
      expect.objectContaining({
        rule: "breaking-change-version",
        location: "#/info/version",
        severity: "warning",
        message: expect.stringContaining("info.version goes from 1.0.0 to 1.0.0: raise it to 2.0.0"),
      }),
    ]);
    expect(next.body.markdown).toContain("### Arbiter contract changelog: ❌ Rejected");
    expect(next.body.markdown).toContain("Errors reject the new contract version");
    expect(await auditReasons(started, "POST /api/v1/projects/:project/contracts")).toEqual([
      "1 breaking changes vs v1",
    ]);

    const stored = await callJson(dev, "GET", "/projects/evo/contracts/2/changes");
    expect(stored.status).toBe(200);
    expect(stored.body.breakingChanges).toMatchObject({ comparedWithVersion: 1, count: 1 });
    const first = await callJson(dev, "GET", "/projects/evo/contracts/1/changes");
    expect(first.status).toBe(404);
    expect(first.body.error.code).toBe("no_comparison");
  });

  it("does not count an added operation as breaking (clients of the old version never call it)", async () => {
    expect((await callJson(dev, "POST", "/projects/grow/contracts", text(withoutGetById()), json)).status).toBe(201);
    const grown = await callJson(dev, "POST", "/projects/grow/contracts", text(ordersContract()), json);
    expect(grown.body.breakingChanges).toMatchObject({ count: 0, approved: true, totalViolations: 1 });
    expect(grown.body.breakingChanges.violations[0]).toMatchObject({
      rule: "undocumented-operation",
      severity: "info",
      location: "GET /orders/{id}",
    });
  });

  it("refuse: a breaking version is stored but not activated until activate?allowBreaking=true", async () => {
    expect((await callJson(gus, "POST", "/projects/strict/contracts", text(ordersContract()), json)).status).toBe(201);
    const breaking = await callJson(gus, "POST", "/projects/strict/contracts", text(withoutGetById()), json);
    expect(breaking.status).toBe(201);
    expect(breaking.body.activated).toBe(false);
    expect(breaking.body.contract.active).toBe(false);
    expect(breaking.body.activation).toContain("activate?allowBreaking=true");
    expect((await callJson(gus, "GET", "/projects/strict/contracts/active")).body.contract.version).toBe(1);

    const refused = await callJson(gus, "POST", "/projects/strict/contracts/2/activate");
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("breaking_changes");
    expect(refused.body.error.details.breakingChanges.count).toBe(1);
    expect((await callJson(gus, "GET", "/projects/strict/contracts/active")).body.contract.version).toBe(1);

    const allowed = await callJson(gus, "POST", "/projects/strict/contracts/2/activate?allowBreaking=true");
    expect(allowed.status).toBe(200);
    expect((await callJson(gus, "GET", "/projects/strict/contracts/active")).body.contract.version).toBe(2);
    // Going back to v1 adds GET /orders/{id} again: nothing breaks, no flag needed.
    expect((await callJson(gus, "POST", "/projects/strict/contracts/1/activate")).status).toBe(200);
    const nonBreaking = await callJson(
      gus,
      "POST",
      "/projects/strict/contracts",
      text(ordersContract({ info: { title: "Orders", version: "1.1.0" } })),
      json,
    );
    expect(nonBreaking.body.activated).toBe(true);
  });

  it("compares stored versions, or an edited contract not uploaded yet, without storing anything", async () => {
    const versions = await callJson(dev, "POST", "/projects/evo/contracts/compare?from=1&to=2");
    expect(versions.status).toBe(200);
    expect(versions.body).toMatchObject({ from: { version: 1 }, to: { version: 2 }, breakingChanges: { count: 1 } });
    const edited = await callJson(dev, "POST", "/projects/evo/contracts/compare?from=2", text(ordersContract()), json);
    expect(edited.body.breakingChanges.count).toBe(0);
    expect(edited.body.to.document).toMatch(/^sha256:/);
    const junit = await callJson(dev, "POST", "/projects/evo/contracts/compare?from=1&to=2&format=junit");
    expect(String(junit.body)).toContain('failures="1"');
    const empty = await callJson(dev, "POST", "/projects/evo/contracts/compare?from=1");
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toContain("?to=<version>");
    expect((await callJson(dev, "GET", "/projects/evo/contracts")).body.contracts).toHaveLength(2);
  });
});
