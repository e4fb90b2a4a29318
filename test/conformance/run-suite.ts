/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned twice in package.json:
 * conformance-stable = 0.1.16, conformance-next = 0.2.0-alpha.12) against a running server, all scenarios of one
 * invocation in one Node 22 process, and returns each scenario's checks from the suite's own result files.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const REPO_ROOT = resolve(import.meta.dirname, "../..");
/** The suite needs Node >= 22 (fs.globSync); the `node` devDependency provides it whatever runs the tests. */
const NODE = join(REPO_ROOT, "node_modules/node/bin/node");
const PRELOAD = join(REPO_ROOT, "test/conformance/bearer-preload.mjs");

export type SuiteLine = "conformance-stable" | "conformance-next";

export interface Check {
  id: string;
  name: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO" | string;
  errorMessage?: string;
}

export interface SuiteRun {
  /** scenario name -> its checks. */
  scenarios: Map<string, Check[]>;
  output: string;
  exitCode: number | null;
  durationMs: number;
}

export interface SuiteOptions {
  line: SuiteLine;
  /** `server` or `authorization`, followed by its options (no --output-dir: added here). */
  args: string[];
  token?: string;
  /** The origin whose requests get the bearer token. */
  origin: string;
  /** Called with each chunk the suite prints (the authorization scenarios print a URL to visit). */
  onOutput?: (text: string) => void;
  timeoutMs?: number;
}

async function collect(dir: string): Promise<Map<string, Check[]>> {
  const scenarios = new Map<string, Check[]>();
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name === "checks.json") {
        // Folders are named server-<scenario>-<timestamp> or authorization-server-<scenario>-<timestamp>.
        const folderName = folder.split("/").pop() ?? "";
        const scenario = folderName
          .replace(/^(authorization-server|server)-/, "")
          .replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
        scenarios.set(scenario, JSON.parse(await readFile(path, "utf8")) as Check[]);
      }
    }
  };
  await walk(dir);
  return scenarios;
}

export async function runSuite(options: SuiteOptions): Promise<SuiteRun> {
  const outputDir = await mkdtemp(join(tmpdir(), "arbiter-conformance-"));
  const started = Date.now();
  const cli = join(REPO_ROOT, "node_modules", options.line, "dist/index.js");
  const env = {
    ...process.env,
    ARBITER_CONFORMANCE_TOKEN: options.token ?? "none",
    ARBITER_CONFORMANCE_ORIGIN: options.origin,
    ARBITER_CONFORMANCE_UNDICI: join(REPO_ROOT, "node_modules", options.line, "node_modules/undici"),
  };
  const child = spawn(NODE, ["--import", PRELOAD, cli, ...options.args, "--output-dir", outputDir], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const onData = (chunk: Buffer) => {
    const text = chunk.toString();
    output += text;
    options.onOutput?.(text);
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 240_000);
  const exitCode = await new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  clearTimeout(timer);
  try {
    return { scenarios: await collect(outputDir), output, exitCode, durationMs: Date.now() - started };
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}
