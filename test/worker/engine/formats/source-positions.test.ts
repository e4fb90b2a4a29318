// Violations located in the uploaded file: JSON and YAML text, operation paths whose parameter names differ
// from the contract's, pointers the file lacks (the deepest part it has), and SARIF / GitHub / Markdown using
// the same line.
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { renderReport } from "../../../../src/engine/formats";
import type { Verdict } from "../../../../src/engine/types";
import { violationLocator } from "../../../../src/engine/formats/source-positions";

const document = {
  openapi: "3.1.0",
  info: { title: "Orders", version: "1" },
  paths: {
    "/orders": { get: { responses: { "200": { description: "ok" } } } },
    "/orders/{orderId}": {
      get: {
        parameters: [{ name: "orderId", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } },
          "404": { description: "missing" },
        },
      },
    },
  },
};

/** 1-based line of the first line of `text` containing `needle` at or after line `from`. */
function lineOf(text: string, needle: string, from = 1): number {
  const lines = text.split("\n");
  for (let i = from - 1; i < lines.length; i++) if (lines[i]!.includes(needle)) return i + 1;
  throw new Error(`${needle} not in text`);
}

describe("violationLocator", () => {
  for (const [kind, text] of [
    ["JSON", JSON.stringify(document, null, 2)],
    ["YAML", stringify(document)],
  ] as const) {
    it(`finds operations and pointers in ${kind}, by path template`, () => {
      const locate = violationLocator(text)!;
      const operation = lineOf(text, "/orders/{orderId}");
      const get = lineOf(text, "get", operation);
      const ok = lineOf(text, "200", get);
      expect(locate("GET /orders/{id}")).toEqual({ startLine: get, startColumn: expect.any(Number) });
      expect(locate("GET /orders/{id}#/responses/200")?.startLine).toBe(ok);
      expect(locate("GET /orders/{id}#/responses/200/content/application~1json/schema")?.startLine).toBe(
        lineOf(text, "schema", ok),
      );
      // A response the file does not declare: the deepest part it has (the responses).
      expect(locate("GET /orders/{id}#/responses/500")?.startLine).toBe(lineOf(text, "responses", get));
      expect(locate("#/info/title")?.startLine).toBe(lineOf(text, "title"));
      // An operation the file lacks: its path; a path it lacks: nothing (line 1 in the formats).
      expect(locate("DELETE /orders/{id}")?.startLine).toBe(operation);
      expect(locate("GET /customers")).toBeUndefined();
    });
  }

  it("gives up on text that is not a document instead of throwing", () => {
    expect(violationLocator("{ not: [json")?.("GET /x")).toBeUndefined();
  });
});

describe("formats with locations", () => {
  const text = stringify(document);
  const verdict: Verdict = {
    approved: false,
    totalViolations: 1,
    violations: [
      {
        rule: "missing-status-code",
        severity: "error",
        location: "GET /orders/{id}#/responses/404",
        message: "the contract declares status 404 but the implementation does not",
      },
    ],
    summary: [{ rule: "missing-status-code", severity: "error", count: 1 }],
  };
  const report = {
    subject: "snapshot" as const,
    project: "shop",
    title: "snapshot 1",
    verdict,
    artifactPath: "api/openapi.yaml",
    locate: violationLocator(text)!,
    link: "https://arbiter.example.com/admin/projects/shop/verdicts/7",
  };
  const line = lineOf(text, "404");

  it("SARIF results carry the line and column in the repository-relative artifact", () => {
    const sarif = JSON.parse(renderReport("sarif", report));
    const location = sarif.runs[0].results[0].locations[0].physicalLocation;
    expect(location.artifactLocation.uri).toBe("api/openapi.yaml");
    // The column of the key itself (its quote, where YAML quotes it), 1-based.
    expect(location.region).toEqual({ startLine: line, startColumn: text.split("\n")[line - 1]!.search(/\S/) + 1 });
  });

  it("GitHub annotations and the Markdown name the same file and line, and link the console's verdict page", () => {
    const github = renderReport("github", report);
    expect(github).toContain(`::error file=api/openapi.yaml,line=${line},col=`);
    expect(github).toContain("Full verdict: https://arbiter.example.com/admin/projects/shop/verdicts/7");
    const markdown = renderReport("markdown", report);
    expect(markdown).toContain(`\`api/openapi.yaml:${line}\``);
    expect(markdown).toContain("(https://arbiter.example.com/admin/projects/shop/verdicts/7)");
  });
});
