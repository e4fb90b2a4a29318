/**
 * The benchmark and demo scripts run the TypeScript sources under Node with bench/ts-resolve.mjs, which resolves
 * imports as the Worker bundler does: extensionless files, and folders by their index.ts (code outside the engine
 * imports `src/engine` as a folder). A module on that path is loaded here the way `npm run bench` loads it.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runProcess } from "../helpers/run-process";

const root = join(import.meta.dirname, "..", "..");

describe("bench/ts-resolve.mjs", () => {
  it("loads a source module that imports the engine's folder, as the benchmarks do", async () => {
    const run = await runProcess(
      process.execPath,
      [
        "--experimental-transform-types",
        "--no-warnings",
        "--import",
        "./bench/ts-resolve.mjs",
        "--input-type=module",
        "-e",
        'const m = await import("./src/contracts/store/verdict-form.ts"); console.log(typeof m.encodeVerdictForm);',
      ],
      { cwd: root, env: { PATH: process.env.PATH ?? "" } },
    );
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("function");
  });
});
