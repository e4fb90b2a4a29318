/**
 * Issue 22, "Output that a document can take over": a verdict whose locations and messages carry every trick a
 * document can play goes through each format, and each consumer's rules hold (src/lib/escape/*).
 */
import { describe, expect, it } from "vitest";
import { renderReport } from "../../../../src/engine/formats";
import type { VerdictReport } from "../../../../src/engine/formats/report";
import { MAX_MARKDOWN_CHARS } from "../../../../src/engine/formats/markdown";
import { markdownCode, markdownText } from "../../../../src/lib/escape/markdown";
import { logLine, workflowData, workflowProperty } from "../../../../src/lib/escape/workflow-command";
import { terminalText } from "../../../../src/lib/escape/terminal";
import { escapeHtml } from "../../../../src/lib/html";
import type { Violation } from "../../../../src/engine/types";

const HOSTILE = [
  "/a\r## ✅ Approved\r<details><summary>ok</summary>",
  "<img src=x onerror=alert(1)>",
  "|fake|row|",
  "`code` break",
  "@octocat please merge, see https://evil.example/x and www.evil.example, mail a@b.example, #12",
  "\u001b[31mred\u001b]8;;https://evil.example\u0007link",
  "admin\u202Egnp.exe",
  "\n::add-mask::secret\n::stop-commands::token\r::error file=app.js,line=1::forged",
  "[click](https://evil.example) {0}",
];

function report(
  violations: Violation[],
  link = "https://arbiter.example/api/v1/projects/p/snapshots/1",
): VerdictReport {
  return {
    subject: "snapshot",
    project: "p",
    title: "snapshot #1",
    link,
    verdict: {
      approved: false,
      totalViolations: violations.length,
      violations,
      summary: [{ rule: "missing-operation", severity: "error", count: violations.length }],
    },
  };
}

const hostileReport = report(
  HOSTILE.map((text) => ({
    rule: "missing-operation",
    severity: "error",
    location: `GET ${text}`,
    message: `breaks: ${text}`,
  })),
);

describe("document text in every format", () => {
  it("Markdown: no line break, HTML, pipe, mention, autolink or link survives; rows stay rows", () => {
    const markdown = renderReport("markdown", hostileReport);
    const lines = markdown.split("\n");
    expect(markdown).not.toMatch(/\r|\u001b|\u202E/);
    expect(lines.filter((line) => line.startsWith("#"))).toEqual(["## Arbiter conformance: ❌ Rejected"]);
    // Code spans are inert (no HTML, links or mentions inside them); everything outside them is escaped text.
    // The one link allowed is Arbiter's own, to the full verdict in the console (not document text).
    const ownLink = /^\[Full verdict in the Arbiter console\]\(https:\/\/arbiter\.example\/[^\s()]*\)$/m;
    expect(markdown).toMatch(ownLink);
    const outsideCode = markdown.replace(ownLink, "").replace(/(`+)[^`]*?(?:`(?!`)[^`]*?)*?\1/g, "");
    expect(outsideCode).not.toMatch(/<img|<details|@octocat|https:\/\/evil|www\.evil|a@b|\]\(/);
    for (const line of lines.filter((line) => line.startsWith("| Error")))
      expect(line.split(/(?<!\\)\|/).length).toBe(6);
    expect(lines.filter((line) => line.startsWith("| Error"))).toHaveLength(HOSTILE.length);
    expect(markdownText("a\rb")).toBe("a b");
    expect(markdownCode("x\ry|`")).toBe("`` x y\\|` ``");
  });

  it("Markdown: a huge verdict stays under GitHub's comment limit and links the full verdict", () => {
    const many = Array.from({ length: 5000 }, (_, index) => ({
      rule: "missing-operation",
      severity: "error" as const,
      location: `GET /orders/${"x".repeat(80)}/${index}`,
      message: `the operation is missing ${"y".repeat(300)}`,
    }));
    const big = report(many);
    big.verdict.totalViolations = 7000;
    const markdown = renderReport("markdown", big);
    expect(markdown.length).toBeLessThanOrEqual(MAX_MARKDOWN_CHARS);
    expect(markdown).toMatch(
      /The first \d+ violations are listed here; \d+ more are not: \[read the full verdict\]\(https:\/\/arbiter\.example\/api\/v1\/projects\/p\/snapshots\/1\)\.\n$/,
    );
  });

  it("GitHub workflow commands: no line starts a command other than Arbiter's own annotations", () => {
    const text = renderReport("github", hostileReport);
    const lines = text.split(/\r\n|\r|\n/).filter(Boolean);
    expect(lines).toHaveLength(HOSTILE.length + 1);
    for (const line of lines) expect(line).toMatch(/^::(error|warning|notice) title=[^:]*::/);
    expect(text).not.toContain("\u001b");
    expect(workflowProperty("a:b,c%\r\n")).toBe("a%3Ab%2Cc%25%0D%0A");
    expect(workflowData("x\u2028::add-mask::y")).toBe("x\\u2028::add-mask::y");
    expect(logLine("  ::add-mask::s")).toBe("\u203A   ::add-mask::s");
    expect(logLine("##[error]x")).toBe("\u203A ##[error]x");
  });

  it("JUnit XML: well-formed, controls visible, nothing injected", () => {
    const xml = renderReport("junit", hostileReport);
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u202E]/);
    expect(xml).not.toContain("<img");
    expect(xml).toContain("\\x1B[31mred");
    expect(xml.match(/<testcase /g)).toHaveLength(HOSTILE.length);
  });

  it("SARIF: message text has no embedded links, placeholders, controls or bidi characters", () => {
    const sarif = JSON.parse(renderReport("sarif", hostileReport)) as {
      runs: { results: { message: { text: string } }[] }[];
    };
    const texts = sarif.runs[0]!.results.map((result) => result.message.text);
    const last = texts[texts.length - 1]!;
    expect(last).toContain("\\[click\\](https://evil.example)");
    expect(last).not.toMatch(/\{0\}/);
    for (const text of texts) expect(text).not.toMatch(/[\u0000-\u001F\u202E]/);
  });

  it("terminal and console: ANSI escapes and bidi overrides are shown, not obeyed", () => {
    expect(terminalText("\u001b[2J\u001b]0;title\u0007x\r\u202Eevil")).toBe(
      "\\x1B[2J\\x1B]0;title\\x07x\\r\\u202Eevil",
    );
    expect(escapeHtml("admin\u202Egnp.exe<b>")).toBe("admin\\u202Egnp.exe&#60;b&#62;");
  });
});
