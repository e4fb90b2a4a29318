/** The CLI's sources as the Worker bundles them (every .mjs below bin/), read from the repository. */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { bundleCli } from "../../src/api/cli-bundle";

export const BIN = resolve(import.meta.dirname, "../../bin");

export function cliSourceFiles(): Record<string, string> {
  const sources: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".mjs"))
        sources[relative(BIN, path).split("\\").join("/")] = readFileSync(path, "utf8");
    }
  };
  walk(BIN);
  return sources;
}

/** What GET /cli/arbiter.mjs serves: the entry and its modules joined into one file. */
export const bundledCli = (): string => bundleCli(cliSourceFiles());
