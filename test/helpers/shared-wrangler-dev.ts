/**
 * The `wrangler dev` that the test files of the "node-shared" project share (started once by
 * shared-wrangler-dev.setup.ts). A file belongs there when it needs nothing but the default test
 * configuration and its assertions hold on a server other files have used: it names its own projects,
 * registers its own clients and never counts what the whole organization holds (audit rows, grants, projects).
 * A file that needs other vars, upstreams, a port of its own or a fresh server starts its own with
 * startWranglerDev() and is listed in the "node" project.
 */
import { readFileSync } from "node:fs";
import { inject } from "vitest";
import type { WranglerDev } from "./wrangler-dev";

export interface SharedWranglerDev {
  url: string;
  port: number;
  logFile: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    sharedWranglerDev: SharedWranglerDev;
  }
}

/** The shared server, as a WranglerDev whose stop() leaves it running for the next file (globalSetup stops it). */
export async function sharedWranglerDev(): Promise<WranglerDev> {
  const shared = inject("sharedWranglerDev");
  if (!shared)
    throw new Error("no shared wrangler dev: this file must be in the node-shared project of vitest.node.config.ts");
  return {
    url: shared.url,
    port: shared.port,
    logs: () => readFileSync(shared.logFile, "utf8"),
    pid: undefined,
    stop: async () => {},
  };
}
