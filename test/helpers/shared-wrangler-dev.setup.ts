/**
 * vitest globalSetup of the "node-shared" project (vitest.node.config.ts): starts ONE `wrangler dev` with the
 * default test configuration (the development sign-in on) for its test files, and stops it after the last one.
 *
 * The start runs in the background, beside the Worker's build and the first files of the other project, so the run
 * does not wait for it: the setup hands the files a folder (provide/inject), where the server's address appears
 * once it answers (`server.json`), or why it could not start (`failed.txt`); sharedWranglerDev() waits for either.
 * The server's output goes to `wrangler.log` there too, since the test files run in other processes.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { SHARED_FAILED, SHARED_SERVER, type SharedWranglerDev } from "./shared-wrangler-dev";
import { startWranglerDev } from "./wrangler-dev";

export default function setup(project: TestProject): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "arbiter-shared-dev-"));
  const logFile = join(dir, "wrangler.log");
  const started = startWranglerDev({ vars: { ARBITER_DEV_SIGN_IN: "true" }, logFile }).then(
    (server) => {
      writeFileSync(join(dir, `${SHARED_SERVER}.tmp`), JSON.stringify({ url: server.url, port: server.port }));
      renameSync(join(dir, `${SHARED_SERVER}.tmp`), join(dir, SHARED_SERVER));
      return server;
    },
    (error: unknown) => {
      writeFileSync(join(dir, SHARED_FAILED), error instanceof Error ? error.message : String(error));
      return undefined;
    },
  );
  const shared: SharedWranglerDev = { dir, logFile };
  project.provide("sharedWranglerDev", shared);
  return async () => {
    await (await started)?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
