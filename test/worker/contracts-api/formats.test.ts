/**
 * Verdict formats over REST: each format a CI system reads is produced from a real upload and checked with a
 * real validator — SARIF against the SARIF 2.1.0 JSON Schema (test/fixtures/sarif), JUnit with an XML parser,
 * GitHub workflow commands by their grammar and escaping.
 */
import { Validator } from "@cfworker/json-schema";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { renderGithubActions } from "../../../src/engine/formats/github-actions";
import { renderJunit } from "../../../src/engine/formats/junit";
import { artifactUri } from "../../../src/engine/formats/sarif";
import sarifSchema from "../../fixtures/sarif/sarif-2.1.0.schema.json";
import { call, callJson } from "./api-helpers";
import { restPrincipal, type Caller } from "../harness";
import { ordersContract, text, violatingSnapshot } from "./fixtures";

let developer: Caller;

function sarifValidator(): Validator {
  return new Validator(structuredClone(sarifSchema) as object, "4", false);
}

/** A violating snapshot and one with a warning-only finding, uploaded once for the whole file. */
let snapshotId = 0;
let verdictId = 0;

beforeAll(async () => {
  developer = restPrincipal("dev", "contracts.read contracts.write snapshots.write");
  const contract = await call(developer, "POST", "/projects/fmt/contracts", text(ordersContract()), {
    "Content-Type": "application/json",
  });
  expect(contract.status).toBe(201);
  const upload = await callJson(developer, "POST", "/projects/fmt/snapshots?commit=abc123", text(violatingSnapshot()), {
    "Content-Type": "application/json",
  });
  expect(upload.status).toBe(201);
  expect(upload.body.verdict.approved).toBe(false);
  snapshotId = upload.body.snapshot.id;
  verdictId = upload.body.verdictId;
});

describe("?format= on verdict routes", () => {
  it("answers SARIF 2.1.0 that the schema accepts, one result per violation, rule help from the registry", async () => {
    const response = await call(
      developer,
      "POST",
      "/projects/fmt/snapshots?commit=def456&format=sarif&artifact=api/openapi.json",
      text(violatingSnapshot()),
      { "Content-Type": "application/json" },
    );
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/sarif+json; charset=utf-8");
    const sarif = (await response.json()) as any;
    const validation = sarifValidator().validate(sarif);
    expect(validation.errors).toEqual([]);
    expect(validation.valid).toBe(true);
    const run = sarif.runs[0];
    expect(run.results).toHaveLength(1);
    const [result] = run.results;
    expect(result).toMatchObject({ ruleId: "missing-operation", level: "error", ruleIndex: 0 });
    expect(result.locations[0].logicalLocations[0]).toEqual({
      name: "GET /orders/{id}",
      fullyQualifiedName: "GET /orders/{id}",
      kind: "function",
    });
    expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe("api/openapi.json");
    expect(run.tool.driver.rules[0]).toMatchObject({
      id: "missing-operation",
      defaultConfiguration: { level: "error" },
    });
    expect(run.tool.driver.rules[0].helpUri).toMatch(/^https:\/\//);
    expect(run.tool.driver.rules[0].shortDescription.text.length).toBeGreaterThan(10);
  });

  it("renders a stored verdict again in every format, and the schema still accepts an approved (empty) SARIF log", async () => {
    const junit = await call(developer, "GET", `/projects/fmt/verdicts/${verdictId}?format=junit`);
    expect(junit.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    const xml = await junit.text();
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml);
    expect(parsed.testsuites).toMatchObject({ tests: "1", failures: "1" });
    expect(parsed.testsuites.testsuite.testcase.failure.type).toBe("missing-operation");

    const markdown = await call(developer, "GET", `/projects/fmt/snapshots/${snapshotId}?format=markdown`);
    expect(markdown.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await markdown.text()).toContain(
      "1 violation: 1 error, 0 warnings, 0 info. Errors reject the implementation snapshot.",
    );

    const github = await call(developer, "GET", `/projects/fmt/snapshots/latest?format=github`);
    const lines = (await github.text()).trimEnd().split("\n");
    expect(lines[0]).toMatch(/^::error title=missing-operation at GET \/orders\/\{id\}::/);
    expect(lines.at(-1)).toMatch(
      /^::error title=Arbiter verdict::Arbiter fmt%3A|^::error title=Arbiter verdict::Arbiter fmt: /,
    );
    // The full verdict opens in the console (which signs a person in), not at a REST URL that answers 401 in a browser.
    expect(lines.at(-1)).toContain(`/admin/projects/fmt/verdicts/`);

    const approved = await call(developer, "POST", "/projects/fmt/contracts?format=sarif", text(ordersContract()), {
      "Content-Type": "application/json",
    });
    const log = (await approved.json()) as any;
    expect(sarifValidator().validate(log).valid).toBe(true);
    expect(log.runs[0].results).toEqual([]);
  });

  it("embeds several formats in the JSON answer with ?formats=", async () => {
    const { status, body } = await callJson(
      developer,
      "GET",
      `/projects/fmt/verdicts/${verdictId}?formats=sarif,junit,github`,
    );
    expect(status).toBe(200);
    expect(Object.keys(body.reports).sort()).toEqual(["github", "junit", "sarif"]);
    expect(sarifValidator().validate(body.reports.sarif).valid).toBe(true);
    expect(XMLValidator.validate(body.reports.junit)).toBe(true);
    expect(body.verdict.approved).toBe(false);
  });

  it("refuses an unknown format before storing anything, naming the formats it knows", async () => {
    const before = await callJson(developer, "GET", "/projects/fmt/snapshots");
    const refused = await callJson(
      developer,
      "POST",
      "/projects/fmt/snapshots?commit=zzz&format=sarf",
      text(violatingSnapshot()),
      { "Content-Type": "application/json" },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('format "sarf" is not one of json, markdown, junit, sarif, github');
    const after = await callJson(developer, "GET", "/projects/fmt/snapshots");
    expect(after.body.snapshots.length).toBe(before.body.snapshots.length);
    const both = await callJson(developer, "GET", `/projects/fmt/verdicts/${verdictId}?format=sarif&formats=junit`);
    expect(both.status).toBe(400);
  });
});

describe("format details", () => {
  const hostile = {
    approved: false,
    totalViolations: 2,
    summary: [{ rule: "x", severity: "error" as const, count: 2 }],
    violations: [
      { rule: "x", severity: "error" as const, location: "GET /a,b:c", message: "line one\n::error::injected 100%" },
      { rule: "x", severity: "warning" as const, location: "GET /w", message: "<tag> & \u0001 control" },
    ],
  };

  it("escapes GitHub workflow commands so document text cannot start a command of its own", () => {
    const out = renderGithubActions({ subject: "draft", project: "p", title: "draft", verdict: hostile });
    const lines = out.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe("::error title=x at GET /a%2Cb%3Ac::line one%0A::error::injected 100%25");
    expect(lines[1]).toMatch(/^::warning title=x at GET \/w::/);
  });

  it("caps workflow commands and says how many were left out", () => {
    const many = {
      ...hostile,
      totalViolations: 120,
      violations: Array.from({ length: 120 }, (_, i) => ({
        rule: "x",
        severity: "error" as const,
        location: `GET /p${i}`,
        message: "m",
      })),
    };
    const lines = renderGithubActions({ subject: "snapshot", project: "p", title: "snapshot #1", verdict: many })
      .trimEnd()
      .split("\n");
    expect(lines).toHaveLength(51);
    expect(lines[50]).toContain("70 more not shown here");
  });

  it("writes JUnit that an XML parser reads, with control characters made visible and markup escaped", () => {
    const xml = renderJunit({ subject: "draft", project: "p", title: "draft", verdict: hostile });
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml);
    expect(parsed.testsuites.testsuite.testcase[1]["system-out"]).toBe("warning: <tag> & \\x01 control");
  });

  it("keeps SARIF artifact paths relative to the repository", () => {
    expect(artifactUri("./api/openapi.yaml")).toBe("api/openapi.yaml");
    expect(artifactUri("/abs/openapi.yaml")).toBe("abs/openapi.yaml");
    expect(artifactUri("../outside.yaml")).toBe("openapi.json");
    expect(artifactUri("https://example.com/x.json")).toBe("openapi.json");
    expect(artifactUri("specs/my api.yaml")).toBe("specs/my%20api.yaml");
    expect(artifactUri(undefined)).toBe("openapi.json");
  });

  it("locates each result at its line in the uploaded YAML, for SARIF and the GitHub annotations alike", async () => {
    // The implementation names the path parameter differently and lacks the contract's 404 response.
    const implementation = structuredClone(ordersContract()) as {
      paths: Record<
        string,
        Record<string, { parameters?: Array<{ name: string }>; responses: Record<string, unknown> }>
      >;
    };
    const byId = implementation.paths["/orders/{id}"]!;
    for (const operation of Object.values(byId)) {
      for (const parameter of operation.parameters ?? []) parameter.name = "orderId";
      delete operation.responses["404"];
    }
    implementation.paths["/orders/{orderId}"] = byId;
    delete implementation.paths["/orders/{id}"];
    const yaml = stringify(implementation);
    const headers = { "Content-Type": "application/yaml" };
    const sarif = (await (
      await call(
        developer,
        "POST",
        "/projects/fmt/snapshots?commit=fed789&format=sarif&artifact=services/orders/openapi.yaml",
        yaml,
        headers,
      )
    ).json()) as any;
    const results = sarif.runs[0].results as any[];
    expect(results.length).toBeGreaterThan(0);
    const lines = yaml.split("\n");
    const responsesLine =
      lines.findIndex(
        (line, i) => line.trim() === "responses:" && lines.slice(0, i).some((l) => l.includes("/orders/{orderId}")),
      ) + 1;
    for (const result of results) {
      const location = result.locations[0].physicalLocation;
      expect(location.artifactLocation.uri).toBe("services/orders/openapi.yaml");
      expect(location.region.startLine, result.message.text).toBeGreaterThan(1);
    }
    const missing404 = results.find((r) => r.ruleId === "missing-status-code")!;
    expect(missing404.locations[0].physicalLocation.region.startLine).toBe(responsesLine);
    const github = await (
      await call(
        developer,
        "POST",
        "/projects/fmt/snapshots?commit=fed78a&format=github&artifact=services/orders/openapi.yaml",
        yaml,
        headers,
      )
    ).text();
    expect(github).toContain(`::error file=services/orders/openapi.yaml,line=${responsesLine},col=`);
  });
});
