/**
 * bin/arbiter.mjs on its own: argument handling and exit codes that need no server, and the report writers
 * (JUnit XML escaping, the readable summary). The server round trips are in contracts-e2e.test.ts.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const CLI = resolve(import.meta.dirname, "../../bin/arbiter.mjs");

interface Violation {
  rule: string;
  severity: "error" | "warning" | "info";
  location: string;
  message: string;
}
interface Verdict {
  approved: boolean;
  totalViolations: number;
  violations: Violation[];
  summary: unknown[];
}
interface CliModule {
  junitXml(project: string, verdict: Verdict, subject: string): string;
  summaryText(heading: string, verdict: Verdict, limit?: number): string;
  EXIT: { approved: number; rejected: number; unverified: number };
}

const load = async (): Promise<CliModule> => (await import(pathToFileURL(CLI).href)) as CliModule;

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, encoding: "utf8" });
}

const verdict = (violations: Violation[]): Verdict => ({ approved: !violations.some((v) => v.severity === "error"), totalViolations: violations.length, violations, summary: [] });

describe("bin/arbiter.mjs", () => {
  it("uses the documented exit codes", async () => {
    expect((await load()).EXIT).toEqual({ approved: 0, rejected: 1, unverified: 2 });
  });

  it("prints help with exit 0 on --help and exit 2 without a command", () => {
    const help = run(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Exit codes: 0 approved");
    expect(run([]).status).toBe(2);
    expect(run(["--version"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("exits 2 with a clear message on usage errors, before any network access", () => {
    const unknownFlag = run(["snapshot", "x.json", "--frobnicate"]);
    expect(unknownFlag.status).toBe(2);
    expect(unknownFlag.stderr).toContain("--frobnicate");
    const noUrl = run(["snapshot", "x.json"], { ARBITER_TOKEN: "t", ARBITER_PROJECT: "p" });
    expect(noUrl.status).toBe(2);
    expect(noUrl.stderr).toContain("ARBITER_URL");
    const noCommit = run(["snapshot", "x.json"], { ARBITER_URL: "http://127.0.0.1:9", ARBITER_TOKEN: "t", ARBITER_PROJECT: "p" });
    expect(noCommit.status).toBe(2);
    expect(noCommit.stderr).toContain("--commit");
    const badCommand = run(["deploy"], { ARBITER_URL: "http://127.0.0.1:9", ARBITER_TOKEN: "t", ARBITER_PROJECT: "p" });
    expect(badCommand.status).toBe(2);
    expect(badCommand.stderr).toContain('Unknown command "deploy"');
  });

  it("never prints the token", () => {
    const secret = "arb_ci_acme_0123456789abcdef_SECRETSECRETSECRETSECRETSECRETSECRETSECRE";
    const result = run(["snapshot", "/nonexistent.json", "--commit", "c"], { ARBITER_URL: "http://127.0.0.1:9", ARBITER_TOKEN: secret, ARBITER_PROJECT: "p" });
    expect(result.status).toBe(2);
    expect(`${result.stdout}${result.stderr}`).not.toContain("SECRET");
  });

  it("writes JUnit XML with one failing test case per error and escapes what the server sends", async () => {
    const { junitXml } = await load();
    const xml = junitXml(
      "orders",
      verdict([
        { rule: "missing-operation", severity: "error", location: "GET /orders/{id}", message: 'The contract declares <GET> & "it" is \u0007missing' },
        { rule: "undocumented-status-code", severity: "warning", location: "GET /orders#/responses/418", message: "teapot" },
      ]),
      "snapshot abc",
    );
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>/);
    expect(xml).toContain('<testsuite name="arbiter orders: snapshot abc" tests="2" failures="1"');
    expect(xml).toContain('message="The contract declares &lt;GET&gt; &amp; &quot;it&quot; is missing"');
    expect(xml).not.toContain("\u0007");
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain("<system-out>warning: teapot</system-out>");
    // Every element opened is closed: a crude well-formedness check without an XML dependency.
    const opened = xml.match(/<(testsuites|testsuite|testcase|failure|system-out)[ >]/g)?.length ?? 0;
    const closed = (xml.match(/<\/(testsuites|testsuite|testcase|failure|system-out)>/g)?.length ?? 0) + (xml.match(/\/>/g)?.length ?? 0);
    expect(opened).toBe(closed);
  });

  it("writes one passing test case when there is nothing to report", async () => {
    const { junitXml } = await load();
    const xml = junitXml("orders", verdict([]), "snapshot abc");
    expect(xml).toContain('tests="1" failures="0"');
    expect(xml).toContain('<testcase name="snapshot abc conforms" classname="arbiter.orders"/>');
  });

  it("summarises the verdict readably and caps long lists", async () => {
    const { summaryText } = await load();
    const many = Array.from({ length: 60 }, (_, i): Violation => ({ rule: "missing-operation", severity: "error", location: `GET /r${i}`, message: `missing ${i}` }));
    const text = summaryText("Arbiter: orders", verdict(many), 50);
    expect(text.split("\n")[0]).toBe("Arbiter: orders: REJECTED");
    expect(text).toContain("60 errors, 0 warnings, 0 info");
    expect(text).toContain("GET /r49");
    expect(text).not.toContain("GET /r50");
    expect(text).toContain("... and 10 more");
  });
});
