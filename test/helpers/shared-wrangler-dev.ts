/**
 * The `wrangler dev` that the test files of the "node-shared" project share (started once by
 * shared-wrangler-dev.setup.ts). A file belongs there when it needs nothing but the default test
 * configuration and its assertions hold on a server other files have used: it names its own projects,
 * registers its own clients and never counts what the whole organization holds (audit rows, grants, projects).
 * A file that needs other vars, upstreams, a port of its own or a fresh server starts its own with
 * startWranglerDev() and is listed in the "node" project.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";
import type { WranglerDev } from "./wrangler-dev";

/** What the globalSetup hands the files: the folder where the server's address (or its failure) appears, and its log. */
export interface SharedWranglerDev {
  dir: string;
  logFile: string;
}

/** In the shared folder: `{ url, port }` once the server answers. */
export const SHARED_SERVER = "server.json";
/** In the shared folder: why the server could not start. */
export const SHARED_FAILED = "failed.txt";

declare module "vitest" {
  export interface ProvidedContext {
    sharedWranglerDev: SharedWranglerDev;
  }
}

/**
 * The shared server once it answers, as a WranglerDev whose stop() leaves it running for the next file (globalSetup
 * stops it). Fails with the server's own error if it could not start.
 */
export async function sharedWranglerDev(timeoutMs = 110_000): Promise<WranglerDev> {
  const shared = inject("sharedWranglerDev");
  if (!shared)
    throw new Error("no shared wrangler dev: this file must be in the node-shared project of vitest.node.config.ts");
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(join(shared.dir, SHARED_SERVER))) {
    if (existsSync(join(shared.dir, SHARED_FAILED)))
      throw new Error(
        `the shared wrangler dev did not start:\n${readFileSync(join(shared.dir, SHARED_FAILED), "utf8")}`,
      );
    if (Date.now() > deadline) throw new Error(`the shared wrangler dev did not answer within ${timeoutMs} ms`);
    await new Promise((done) => setTimeout(done, 100));
  }
  const { url, port } = JSON.parse(readFileSync(join(shared.dir, SHARED_SERVER), "utf8")) as {
    url: string;
    port: number;
  };
  return {
    url,
    port,
    logs: () => readFileSync(shared.logFile, "utf8"),
    pid: undefined,
    stop: async () => {},
  };
}
