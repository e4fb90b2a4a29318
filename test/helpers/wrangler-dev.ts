/**
 * Starts a real `wrangler dev` of this Worker for end-to-end tests and stops it again.
 *
 * - Port: a free loopback port is picked unless one is given; if another process grabs it between the check
 *   and wrangler's bind, the start is retried on a new port.
 * - Readiness: wrangler's "Ready on" line, then GET /health answering 200 (the first request also bundles
 *   the policies, so tests never race the Worker's start-up).
 * - State: every instance persists to its own temporary directory, so runs never share KV or Durable Objects.
 * - Failure: the error carries the tail of wrangler's output, which usually says what went wrong.
 * - Logs: kept in memory (logs()); with `logFile`, also appended to that file, so test files that share one
 *   server started in vitest's globalSetup (shared-wrangler-dev.ts) can read them.
 * - Build: wrangler bundles the Worker, unless the node tests' globalSetup built it once already and PREBUILT_WORKER_ENV
 *   names that build's configuration (prebuilt-worker.ts); `config`, `env` and `minify` always build afresh.
 * - Process: wrangler's own launcher on this Node, without `npx` (npm's own start-up would cost every server CPU);
 *   wrangler needs Node 22.12 or later, which the `node` devDependency gives every npm script.
 * - Stop: the whole process group (wrangler -> workerd) is terminated, then killed if it lingers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export interface WranglerDevOptions {
  /** Worker vars passed as `--var KEY:VALUE`. PUBLIC_URL defaults to the dev server's own URL. */
  vars?: Record<string, string>;
  /** Listen on this port (no retry if it is taken). Default: a free port. */
  port?: number;
  /** wrangler environment (`--env`). Default: the top-level (deploy) configuration. */
  env?: string;
  /** How long to wait for readiness. */
  readyTimeoutMs?: number;
  /** Also append everything wrangler prints to this file. */
  logFile?: string;
  /** Another Worker's configuration (`--config`), relative to the repository. Default: wrangler.toml. */
  config?: string;
  /** Extra environment for wrangler (e.g. MINIFLARE_WORKERD_V8_FLAGS for the benchmark Worker). */
  processEnv?: Record<string, string>;
  /** The DevTools inspector port (bench:profile attaches a CPU profiler there). Default: a free port. */
  inspectorPort?: number;
  /**
   * Readiness without a request: after "Ready on", wait only until the port accepts a TCP connection, so the
   * Worker has answered nothing yet (bench:coldstart times the first request). Default: GET /health answers 200.
   */
  noWarmUpRequest?: boolean;
  /**
   * Keep state in this directory, and keep it after stop (bench:scale stops the server, seeds its stores' SQLite files
   * directly, and starts it again on the same state). Default: a temporary directory removed on stop.
   */
  persistTo?: string;
  /**
   * `false` builds the Worker without minifying (`--no-minify`), so its bundle keeps esbuild's `// path` comments:
   * the profiling scripts map samples to files with them. Default: as the configuration says (wrangler.toml minifies).
   */
  minify?: boolean;
}

export interface WranglerDev {
  /** e.g. http://localhost:8801 (localhost, so cookies and PUBLIC_URL match what a browser would use). */
  url: string;
  port: number;
  /** Everything wrangler printed so far (stdout and stderr interleaved). */
  logs(): string;
  /** The process at the top of this server's process tree, wrangler -> workerd (benchmarks read its CPU); undefined for the shared server. */
  pid: number | undefined;
  stop(): Promise<void>;
}

export const REPO_ROOT = resolve(import.meta.dirname, "../..");
/** wrangler's launcher, run on this Node. */
export const WRANGLER = join(REPO_ROOT, "node_modules/wrangler/bin/wrangler.js");
/** Environment for every wrangler the tests run: no network lookups, no metrics, plain output. */
export const WRANGLER_ENV = {
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
  CI: "true",
  NO_COLOR: "1",
  FORCE_COLOR: "0",
};
/** Names the configuration of the Worker built once for the node tests (prebuilt-worker.ts), when one is. */
export const PREBUILT_WORKER_ENV = "ARBITER_TEST_PREBUILT_WORKER";
const LOG_LIMIT = 200_000;

/** Runs a wrangler command on this Node in `cwd` and returns what it printed; fails with its tail if it exits non-zero. */
export function runWrangler(args: string[], cwd = REPO_ROOT): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [WRANGLER, ...args], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...WRANGLER_ENV },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", fail);
    child.once("close", (code) => {
      if (code === 0) done(output);
      else fail(new Error(`wrangler ${args.join(" ")} exited ${code}:\n${output.slice(-4000)}`));
    });
  });
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolvePort(port) : reject(new Error("could not find a free port"))));
    });
  });
}

/** Resolves once the prebuilt Worker's configuration exists; fails with the build's error if it failed. */
export async function prebuiltWorkerReady(config: string, timeoutMs = 100_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(config)) {
    if (existsSync(`${config}.failed`))
      throw new Error(`the Worker's build for the tests failed:\n${readFileSync(`${config}.failed`, "utf8")}`);
    if (Date.now() > deadline) throw new Error(`the Worker's build for the tests was not done after ${timeoutMs} ms`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

class StartFailure extends Error {
  readonly portTaken: boolean;
  constructor(message: string, portTaken: boolean) {
    super(message);
    this.portTaken = portTaken;
  }
}

function tail(text: string, lines = 60): string {
  return text.split("\n").slice(-lines).join("\n");
}

async function killGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // The group is already gone.
    }
  };
  signal("SIGTERM");
  const forced = setTimeout(() => signal("SIGKILL"), 5_000);
  // Both timers are cleared once the process has exited: a timer left running keeps the process that stopped the
  // server alive (vitest's main process, for the shared server, waited out its teardown timeout for it).
  let giveUp: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([exited, new Promise((done) => (giveUp = setTimeout(done, 10_000)))]);
  clearTimeout(giveUp);
  clearTimeout(forced);
  // workerd may outlive wrangler briefly; make sure nothing of the group survives.
  signal("SIGKILL");
}

async function waitForHealth(url: string, deadline: number): Promise<void> {
  let last = "";
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) });
      if (response.ok) return;
      last = `status ${response.status}: ${(await response.text()).slice(0, 300)}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`GET /health never answered 200 (last: ${last})`);
}

/** Resolves once 127.0.0.1:port accepts a TCP connection (no HTTP request is sent). */
async function waitForPort(port: number, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        done(true);
      });
      socket.once("error", () => done(false));
    });
    if (open) return;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`127.0.0.1:${port} never accepted a connection`);
}

async function startOnce(port: number, options: WranglerDevOptions): Promise<WranglerDev> {
  const url = `http://localhost:${port}`;
  const persistDir = options.persistTo ?? (await mkdtemp(join(tmpdir(), "arbiter-wrangler-")));
  const vars = { PUBLIC_URL: url, ...options.vars };
  const args = [
    WRANGLER,
    "dev",
    "--port",
    String(port),
    "--ip",
    "127.0.0.1",
    "--persist-to",
    persistDir,
    "--show-interactive-dev-session=false",
    "--inspector-port",
    String(options.inspectorPort ?? (await freePort())),
  ];
  if (options.env) args.push("--env", options.env);
  if (options.config) args.push("--config", options.config);
  if (options.minify === false) args.push("--no-minify");
  const prebuilt = process.env[PREBUILT_WORKER_ENV];
  if (prebuilt && !options.config && !options.env && options.minify === undefined) {
    await prebuiltWorkerReady(prebuilt);
    args.push("--config", prebuilt);
  }
  for (const [key, value] of Object.entries(vars)) args.push("--var", `${key}:${value}`);

  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    detached: true, // own process group, so stop() reaches workerd too
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...options.processEnv, ...WRANGLER_ENV },
  });
  let output = "";
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    if (options.logFile) appendFileSync(options.logFile, chunk);
    // Trimmed in steps, not on every chunk: a chatty Worker (one audit line per call under bench:mcp) would
    // otherwise copy the whole buffer per line and steal CPU from the server being measured.
    if (output.length > 2 * LOG_LIMIT) output = output.slice(-LOG_LIMIT);
  };
  child.stdout!.on("data", append);
  child.stderr!.on("data", append);

  const cleanup = async () => {
    await killGroup(child);
    if (!options.persistTo) await rm(persistDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 90_000);
  try {
    await new Promise<void>((ready, fail) => {
      const timer = setInterval(() => {
        if (/Ready on/.test(output)) {
          clearInterval(timer);
          ready();
        } else if (child.exitCode !== null || child.signalCode !== null) {
          clearInterval(timer);
          fail(
            new StartFailure(
              `wrangler dev exited (${child.exitCode ?? child.signalCode}) before it was ready`,
              /EADDRINUSE|address already in use/i.test(output),
            ),
          );
        } else if (Date.now() > deadline) {
          clearInterval(timer);
          fail(new StartFailure(`wrangler dev was not ready after ${options.readyTimeoutMs ?? 90_000} ms`, false));
        }
      }, 100);
    });
    if (options.noWarmUpRequest) await waitForPort(port, deadline);
    else await waitForHealth(url, deadline);
  } catch (error) {
    await cleanup();
    const portTaken = error instanceof StartFailure ? error.portTaken : false;
    throw new StartFailure(`${(error as Error).message}\n--- wrangler output (tail) ---\n${tail(output)}`, portTaken);
  }

  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    logs: () => output,
    pid: child.pid,
    stop: () => (stopped ??= cleanup()),
  };
}

/** Starts `wrangler dev` of this repository's Worker and resolves once it serves requests. */
export async function startWranglerDev(options: WranglerDevOptions = {}): Promise<WranglerDev> {
  if (options.port !== undefined) return startOnce(options.port, options);
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(await freePort(), options);
    } catch (error) {
      lastError = error;
      if (!(error instanceof StartFailure && error.portTaken)) throw error;
    }
  }
  throw lastError;
}
