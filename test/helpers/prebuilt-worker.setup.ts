/**
 * vitest globalSetup of both node projects (vitest.node.config.ts): builds the Worker once, as `wrangler deploy`
 * builds it, for every `wrangler dev` the test files start (test/helpers/prebuilt-worker.ts says how). Without
 * it, each of them bundles the same sources again. The build runs while the first files load: the setup names the
 * configuration it will write at once, and startWranglerDev() waits for it. The first project's setup builds; the
 * other finds the build through the environment variable. The teardown removes the build after the last file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildPrebuiltWorker, PREBUILT_WORKER_ENV } from "./prebuilt-worker";

export default function setup(): (() => Promise<void>) | undefined {
  if (process.env[PREBUILT_WORKER_ENV]) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "arbiter-prebuilt-"));
  const { config, built } = buildPrebuiltWorker(dir);
  process.env[PREBUILT_WORKER_ENV] = config;
  return async () => {
    await built;
    delete process.env[PREBUILT_WORKER_ENV];
    rmSync(dir, { recursive: true, force: true });
  };
}
