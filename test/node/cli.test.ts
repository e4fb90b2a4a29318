/**
 * bin/arbiter.mjs on its own: argument handling and exit codes that need no server, and the report writers
 * (JUnit XML escaping, the readable summary). The server round trips are in contracts-e2e.test.ts; how the
 * modules are joined into the one served file is in cli-bundle.test.ts.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { bundledCli, cliSourceFiles } from "../helpers/cli-sources";

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
  summaryText(heading: string, verdict: Verdict, limit?: number): string;
  EXIT: { approved: number; rejected: number; unverified: number };
}

const load = async (): Promise<CliModule> => (await import(pathToFileURL(CLI).href)) as CliModule;

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
  });
}

/**
 * Every module the file loads: static imports and re-exports, `import()` and `require()`. A call whose
 * argument is not a string literal is reported as such, since what it loads cannot be checked.
 */
function moduleSpecifiers(source: string): string[] {
  const file = ts.createSourceFile("arbiter.mjs", source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      found.push(ts.isStringLiteral(node.moduleSpecifier) ? node.moduleSpecifier.text : "<non-literal>");
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === "require"))
    ) {
      const argument = node.arguments[0];
      found.push(argument && ts.isStringLiteralLike(argument) ? argument.text : "<non-literal>");
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Directories from `start` up to the root that hold a node_modules a module lookup could fall back on. */
function nodeModulesAbove(start: string): string[] {
  const found: string[] = [];
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules"))) found.push(join(dir, "node_modules"));
    if (dirname(dir) === dir) return found;
  }
}

const verdict = (violations: Violation[]): Verdict => ({
  approved: !violations.some((v) => v.severity === "error"),
  totalViolations: violations.length,
  violations,
  summary: [],
});

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

  it("loads only Node built-ins (node: specifiers), statically or dynamically, besides its own modules", () => {
    const served = moduleSpecifiers(bundledCli());
    expect(served).toEqual(expect.arrayContaining(["node:fs", "node:url", "node:util"]));
    for (const specifier of served) expect(specifier, "every module the served CLI loads").toMatch(/^node:[a-z_/]+$/);
    for (const [path, source] of Object.entries(cliSourceFiles())) {
      for (const specifier of moduleSpecifiers(source))
        expect(specifier, `what bin/${path} loads`).toMatch(/^(node:[a-z_/]+|\.\.?\/[a-z/.-]+\.mjs)$/);
    }
    // The scanner itself sees what it must: a package import, a dynamic import, a require, a computed one.
    expect(
      moduleSpecifiers(
        'import a from "undici"; export * from "./x.mjs"; await import("yaml"); require("node:fs"); import(name);',
      ),
    ).toEqual(["undici", "./x.mjs", "yaml", "node:fs", "<non-literal>"]);
  });

  it("runs from a copy of the served file alone in an empty temporary directory: nothing installed is needed", () => {
    const dir = mkdtempSync(join(tmpdir(), "arbiter-cli-"));
    try {
      expect(nodeModulesAbove(dir), "a node_modules above the temporary directory would weaken this test").toEqual([]);
      const copy = join(dir, "arbiter.mjs");
      writeFileSync(copy, bundledCli());
      const alone = (args: string[]) =>
        spawnSync(process.execPath, [copy, ...args], {
          cwd: dir,
          env: { PATH: process.env.PATH ?? "" },
          encoding: "utf8",
        });
      const help = alone(["--help"]);
      expect(help.stderr).toBe("");
      expect(help.status).toBe(0);
      expect(help.stdout, "the served file's help is the sources' help").toBe(run(["--help"]).stdout);
      expect(help.stdout).toContain("Usage:\n  arbiter snapshot <openapi-file> --project <name>");
      expect(help.stdout).toContain(
        "Exit codes: 0 approved (build-failed: recorded; diff: nothing breaks), 1 rejected (diff: breaking changes),\n2 could not verify.",
      );
      const noCommand = alone([]);
      expect(noCommand.status).toBe(2);
      expect(noCommand.stdout).toContain("Usage:");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits 2 with a clear message on usage errors, before any network access", () => {
    const unknownFlag = run(["snapshot", "x.json", "--frobnicate"]);
    expect(unknownFlag.status).toBe(2);
    expect(unknownFlag.stderr).toContain("Unknown option --frobnicate.\n");
    const typo = run(["contract", "x.json", "--fial-on-breaking"]);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain("Unknown option --fial-on-breaking. Did you mean --fail-on-breaking?");
    expect(run(["check", "x.json", "--projcet", "shop"]).stderr).toContain("Did you mean --project?");
    const noUrl = run(["snapshot", "x.json"], { ARBITER_TOKEN: "t", ARBITER_PROJECT: "p" });
    expect(noUrl.status).toBe(2);
    expect(noUrl.stderr).toContain("ARBITER_URL");
    const noCommit = run(["snapshot", "x.json"], {
      ARBITER_URL: "http://127.0.0.1:9",
      ARBITER_TOKEN: "t",
      ARBITER_PROJECT: "p",
    });
    expect(noCommit.status).toBe(2);
    expect(noCommit.stderr).toContain("--commit");
    const badCommand = run(["deploy"], { ARBITER_URL: "http://127.0.0.1:9", ARBITER_TOKEN: "t", ARBITER_PROJECT: "p" });
    expect(badCommand.status).toBe(2);
    expect(badCommand.stderr).toContain('Unknown command "deploy"');
  });

  it("never prints the token", () => {
    const secret = "arb_ci_acme_0123456789abcdef_SECRETSECRETSECRETSECRETSECRETSECRETSECRE";
    const result = run(["snapshot", "/nonexistent.json", "--commit", "c"], {
      ARBITER_URL: "http://127.0.0.1:9",
      ARBITER_TOKEN: secret,
      ARBITER_PROJECT: "p",
    });
    expect(result.status).toBe(2);
    expect(`${result.stdout}${result.stderr}`).not.toContain("SECRET");
  });

  it("summarises the verdict readably and caps long lists", async () => {
    const { summaryText } = await load();
    const many = Array.from(
      { length: 60 },
      (_, i): Violation => ({
        rule: "missing-operation",
        severity: "error",
        location: `GET /r${i}`,
        message: `missing ${i}`,
      }),
    );
    const text = summaryText("Arbiter: orders", verdict(many), 50);
    expect(text.split("\n")[0]).toBe("Arbiter: orders: REJECTED");
    expect(text).toContain("60 errors, 0 warnings, 0 info");
    expect(text).toContain("GET /r49");
    expect(text).not.toContain("GET /r50");
    expect(text).toContain("... and 10 more");
  });

  it("counts from the summary when the server listed fewer violations than it found", async () => {
    const { summaryText } = await load();
    const listed = Array.from(
      { length: 500 },
      (_, i): Violation => ({ rule: "response-type", severity: "error", location: `GET /r${i}`, message: `type ${i}` }),
    );
    const bounded: Verdict = {
      approved: false,
      totalViolations: 200_000,
      violations: listed,
      summary: [{ rule: "response-type", severity: "error", count: 200_000 }],
    };
    const text = summaryText("Arbiter: orders", bounded, 50);
    expect(text).toContain("200000 errors, 0 warnings, 0 info");
    expect(text).toContain("... and 199950 more");
  });

  it("names the uploaded file by its path from the git root for SARIF (--artifact wins), never an absolute path", async () => {
    const { repositoryPath } = (await import(pathToFileURL(join(dirname(CLI), "cli/repository.mjs")).href)) as {
      repositoryPath(file: string, cwd?: string): string | undefined;
    };
    const repo = mkdtempSync(join(tmpdir(), "arbiter-repo-"));
    try {
      mkdirSync(join(repo, ".git"));
      mkdirSync(join(repo, "services", "orders"), { recursive: true });
      const inside = join(repo, "services", "orders", "openapi.yaml");
      expect(repositoryPath(inside, tmpdir())).toBe("services/orders/openapi.yaml");
      expect(repositoryPath("orders/openapi.yaml", join(repo, "services"))).toBe("services/orders/openapi.yaml");
      expect(repositoryPath("-")).toBeUndefined();
      // Outside any repository: relative to the working directory when inside it, else the file's name.
      const loose = mkdtempSync(join(tmpdir(), "arbiter-loose-"));
      expect(repositoryPath(join(loose, "api", "spec.json"), loose)).toBe("api/spec.json");
      expect(repositoryPath(join(loose, "spec.json"), repo === loose ? "/" : join(loose, "elsewhere"))).toBe(
        "spec.json",
      );
      rmSync(loose, { recursive: true, force: true });
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
