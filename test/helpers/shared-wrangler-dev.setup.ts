/**
 * vitest globalSetup of the "node-shared" project (vitest.node.config.ts): starts ONE `wrangler dev` with the
 * default test configuration (the development sign-in on) before its test files run, hands its address to
 * them (provide/inject; read it with sharedWranglerDev()), and stops it after the last one. Its output goes to
 * a log file, since the test files run in other processes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import type { SharedWranglerDev } from "./shared-wrangler-dev";
import { startWranglerDev } from "./wrangler-dev";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const logDir = mkdtempSync(join(tmpdir(), "arbiter-shared-dev-"));
  const logFile = join(logDir, "wrangler.log");
  const server = await startWranglerDev({ vars: { ARBITER_DEV_SIGN_IN: "true" }, logFile });
  const shared: SharedWranglerDev = { url: server.url, port: server.port, logFile };
  project.provide("sharedWranglerDev", shared);
  return async () => {
    await server.stop();
    rmSync(logDir, { recursive: true, force: true });
  };
}
