/**
 * src/api/cli-bundle.ts: bin/arbiter.mjs and its modules joined into the one file GET /cli/arbiter.mjs serves.
 * The joined file must behave as the sources do (same exports, same answers), list every module the Worker
 * carries, and refuse module forms it would join wrongly instead of serving a broken script.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { bundleCli, CliBundleError } from "../../src/api/cli-bundle";
import { BIN, bundledCli, cliSourceFiles } from "../helpers/cli-sources";

interface CliModule {
  EXIT: Record<string, number>;
  summaryText(heading: string, verdict: unknown): string;
  credentialsFile(env: Record<string, string>): string;
  main(
    argv: string[],
    env: Record<string, string>,
    out: (line: string) => void,
    err: (line: string) => void,
  ): Promise<number>;
}

async function answers(module: CliModule, argv: string[]) {
  const lines: string[] = [];
  const code = await module.main(
    argv,
    {},
    (l) => lines.push(`out ${l}`),
    (l) => lines.push(`err ${l}`),
  );
  return { code, lines };
}

describe("the served CLI file", () => {
  it("exports and answers what bin/arbiter.mjs does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arbiter-bundle-"));
    try {
      const file = join(dir, "arbiter.mjs");
      writeFileSync(file, bundledCli());
      const joined = (await import(pathToFileURL(file).href)) as CliModule;
      const sources = (await import(pathToFileURL(join(BIN, "arbiter.mjs")).href)) as CliModule;
      expect(Object.keys(joined).sort()).toEqual(Object.keys(sources).sort());
      expect(joined.EXIT).toEqual(sources.EXIT);
      expect(joined.credentialsFile({ XDG_CONFIG_HOME: "/x" })).toBe(
        sources.credentialsFile({ XDG_CONFIG_HOME: "/x" }),
      );
      const verdict = {
        approved: false,
        violations: [{ rule: "r", severity: "error", location: "GET /a", message: "m" }],
        summary: [],
      };
      expect(joined.summaryText("h", verdict)).toBe(sources.summaryText("h", verdict));
      for (const argv of [["--version"], ["deploy"], ["snapshot", "x.json", "--frobnicate"], ["check", "x.json"]]) {
        expect(await answers(joined, argv), argv.join(" ")).toEqual(await answers(sources, argv));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is built from every module under bin/, each listed in src/api/cli-sources.ts", () => {
    const listed = readFileSync(resolve(import.meta.dirname, "../../src/api/cli-sources.ts"), "utf8");
    for (const path of Object.keys(cliSourceFiles())) {
      expect(listed, `bin/${path} imported`).toContain(`from "../../bin/${path}";`);
      expect(listed, `bin/${path} listed`).toContain(`"${path}": `);
    }
    const joined = bundledCli();
    for (const path of Object.keys(cliSourceFiles()).filter((p) => p !== "arbiter.mjs"))
      expect(joined, `bin/${path} joined`).toContain(`// ---- bin/${path} ----`);
  });

  it("refuses module forms it cannot join, naming the file and line", () => {
    const entry = 'import { a } from "./cli/a.mjs";\nexport const b = a;\n';
    const refused = (sources: Record<string, string>) => () => bundleCli(sources);
    expect(refused({ "arbiter.mjs": entry })).toThrow(/bin\/arbiter\.mjs imports bin\/cli\/a\.mjs, which is not among/);
    expect(refused({ "arbiter.mjs": entry, "cli/a.mjs": "export const c = 1;\n" })).toThrow(
      /imports a from bin\/cli\/a\.mjs, which does not export it/,
    );
    expect(
      refused({ "arbiter.mjs": entry, "cli/a.mjs": 'import { a as z } from "node:fs";\nexport const a = 1;\n' }),
    ).toThrow(CliBundleError);
    expect(refused({ "arbiter.mjs": entry, "cli/a.mjs": 'import yaml from "yaml";\nexport const a = 1;\n' })).toThrow(
      /bin\/cli\/a\.mjs:1: unsupported import form/,
    );
    expect(refused({ "arbiter.mjs": entry, "cli/a.mjs": 'import { y } from "yaml";\nexport const a = 1;\n' })).toThrow(
      /neither a Node built-in/,
    );
    expect(
      refused({ "arbiter.mjs": entry, "cli/a.mjs": 'import { b } from "../arbiter.mjs";\nexport const a = 1;\n' }),
    ).toThrow(/import circle/);
    expect(refused({ "arbiter.mjs": entry, "cli/a.mjs": "export default 1;\nexport const a = 1;\n" })).toThrow(
      /bin\/cli\/a\.mjs:1: unsupported export form/,
    );
    expect(
      refused({
        "arbiter.mjs": entry,
        "cli/a.mjs": 'import { x } from "node:fs";\nexport const a = 1;\n',
        "cli/b.mjs": "",
      }),
    ).not.toThrow();
    const clash = {
      "arbiter.mjs": 'import { a } from "./cli/a.mjs";\nimport { b } from "./cli/b.mjs";\n',
      "cli/a.mjs": 'import { x } from "node:fs";\nexport const a = 1;\n',
      "cli/b.mjs": 'import { x } from "node:os";\nexport const b = 1;\n',
    };
    expect(refused(clash)).toThrow(/x is imported from both node:fs and node:os/);
  });
});
