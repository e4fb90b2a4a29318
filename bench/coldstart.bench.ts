/**
 * `npm run bench:coldstart`: what start-up costs Arbiter against the bare MCP server (bench/bare-server/, the
 * Cloudflare-docs server bench:mcp compares with), in three sections, printed as Markdown (BENCHMARKS.md is left
 * alone):
 *  - first call: a fresh `wrangler dev` per measurement (started without any request, so the Worker has answered
 *    nothing), then one new client's way to its first answered `tools/call`, timed from its first request:
 *    discovery (POST /mcp without a token -> 401, the protected resource metadata, the authorization server
 *    metadata), the token (registration, authorization, code exchange: Arbiter's includes the development sign-in
 *    and its consent page, the bare server approves at once), then MCP until the first answer (2025-11-25:
 *    initialize, notifications/initialized, tools/call; 2026-07-28: one tools/call), and a second call for a warm
 *    comparison. Arbiter calls `whoami`, the bare server `bench_bare`. The two Workers take turns (ABBA), eras too.
 *  - start-up CPU: `wrangler check startup` (a local V8 profile of the module's evaluation) of each Worker, built as
 *    deployed (Arbiter's wrangler.toml minifies) and with `--no-minify`, and where the unminified build's samples
 *    fall, by package (self time, the profile's lines mapped to the `// path` comments of the same unminified
 *    dry-run bundle; checked against esbuild's path-named module wrappers).
 *  - bundle: `wrangler deploy --dry-run --outdir <tmp> --metafile` of each Worker as deployed: raw and gzip size as
 *    wrangler reports them, and the biggest packages by their bytes in the bundle (esbuild's metafile).
 *
 * Options: --reps N (5: measurements per Worker and era, and `check startup` runs per Worker), --era
 * 2025-11-25|2026-07-28 (both), --only first-call|startup|bundle (all), --top N (16: packages listed),
 * --arbiter-tool whoami|bench_governed|bench_bare (whoami: the tool Arbiter's first call calls; the two benchmark tools,
 * on only with ARBITER_BENCH_BARE=true on loopback as in bench:mcp, split the front's first-call cost from governance's),
 * --bare-tool bench_bare|bench_recorded (bench_bare; bench_recorded stores a record of the call in a Durable Object
 * before it answers: the bare server's first answer with the first use of such an object, as Arbiter's first call has).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { runWrangler, startWranglerDev } from "../test/helpers/wrangler-dev";
import { obtainToken } from "../test/helpers/oauth-http";
import { obtainBareToken } from "./bare-server/token";
import { openSession, SESSION_ERA, STATELESS_ERA, type Era } from "./mcp-client";

const REPO_ROOT = resolve(import.meta.dirname, "..");

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? undefined : process.argv[index + 1];
}
function count(name: string, fallback: number): number {
  const raw = option(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} needs a positive integer (got ${raw})`);
  return value;
}
const REPS = count("reps", 5);
const TOP = count("top", 16);
const ONLY = option("only");
if (ONLY !== undefined && !["first-call", "startup", "bundle"].includes(ONLY))
  throw new Error(`--only needs first-call, startup or bundle (got ${ONLY})`);
const eraOption = option("era");
if (eraOption !== undefined && eraOption !== SESSION_ERA && eraOption !== STATELESS_ERA)
  throw new Error(`--era needs ${SESSION_ERA} or ${STATELESS_ERA} (got ${eraOption})`);
const ERAS: Era[] = eraOption ? [eraOption as Era] : [SESSION_ERA, STATELESS_ERA];

interface Worker {
  name: string;
  /** wrangler configuration, relative to the repository. */
  config: string;
  vars: Record<string, string>;
  tool: string;
  token(base: string): Promise<string>;
}

const ARBITER_TOOL = option("arbiter-tool") ?? "whoami";
if (!["whoami", "bench_governed", "bench_bare"].includes(ARBITER_TOOL))
  throw new Error(`--arbiter-tool needs whoami, bench_governed or bench_bare (got ${ARBITER_TOOL})`);
const ARBITER: Worker = {
  name: "arbiter",
  config: "wrangler.toml",
  vars: { ARBITER_DEV_SIGN_IN: "true", ...(ARBITER_TOOL === "whoami" ? {} : { ARBITER_BENCH_BARE: "true" }) },
  tool: ARBITER_TOOL,
  token: (base) => obtainToken(base, { user: "ana", scope: "orders.read", resource: `${base}/mcp` }),
};
const BARE_TOOL = option("bare-tool") ?? "bench_bare";
if (!["bench_bare", "bench_recorded"].includes(BARE_TOOL))
  throw new Error(`--bare-tool needs bench_bare or bench_recorded (got ${BARE_TOOL})`);
const BARE: Worker = {
  name: "bare server",
  config: "bench/bare-server/wrangler.toml",
  vars: {},
  tool: BARE_TOOL,
  token: obtainBareToken,
};
const WORKERS = [ARBITER, BARE];

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const spread = (values: number[], digits = 0) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;

async function expectStatus(response: Promise<Response>, status: number, what: string): Promise<void> {
  const answer = await response;
  await answer.text();
  if (answer.status !== status) throw new Error(`${what}: HTTP ${answer.status}, expected ${status}`);
}

interface FirstCall {
  discoveryMs: number;
  tokenMs: number;
  /** From the token in hand to the first answered tools/call. */
  mcpMs: number;
  totalMs: number;
  secondCallMs: number;
}

/** One fresh wrangler dev, one new client: its way from the first request to the first answered tools/call. */
async function firstCall(worker: Worker, era: Era): Promise<FirstCall> {
  const dev = await startWranglerDev({ config: worker.config, vars: worker.vars, noWarmUpRequest: true });
  try {
    const base = dev.url;
    const start = performance.now();
    await expectStatus(
      fetch(`${base}/mcp`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: "{}",
      }),
      401,
      "POST /mcp without a token",
    );
    await expectStatus(fetch(`${base}/.well-known/oauth-protected-resource/mcp`), 200, "protected resource metadata");
    await expectStatus(fetch(`${base}/.well-known/oauth-authorization-server`), 200, "authorization server metadata");
    const discovered = performance.now();
    const token = await worker.token(base);
    const tokened = performance.now();
    const session = await openSession(base, token, era);
    await session.call(worker.tool, 1);
    const answered = performance.now();
    await session.call(worker.tool, 2);
    const second = performance.now() - answered;
    return {
      discoveryMs: discovered - start,
      tokenMs: tokened - discovered,
      mcpMs: answered - tokened,
      totalMs: answered - start,
      secondCallMs: second,
    };
  } finally {
    await dev.stop();
  }
}

interface Startup {
  activeMs: number;
  gcMs: number;
  profile: string;
}

/**
 * The build a measurement is of: "deployed" is the Worker as its configuration builds it (wrangler.toml minifies
 * Arbiter), "unminified" the same build with `--no-minify`, whose `// path` comments name each line's input file:
 * start-up samples are attributed to packages on it. "minified" (`--minify`) is the bare server's bundle as Arbiter's
 * is built, for a like-for-like size.
 */
type Build = "deployed" | "unminified" | "minified";
const buildArgs = (build: Build) => (build === "deployed" ? [] : [build === "minified" ? "--minify" : "--no-minify"]);

async function checkStartup(worker: Worker, dir: string, rep: number, build: Build): Promise<Startup> {
  const profile = join(dir, `${worker.name.replace(/\W/g, "-")}-${build}-${rep}.cpuprofile`);
  // `check startup` ignores --config (wrangler 4.164 profiled the repository's Worker for any --config): it is run
  // in the folder of the Worker's configuration instead. `--args` passes its flags to the build.
  const args = buildArgs(build).map((flag) => `--args=${flag}`);
  const output = await runWrangler(
    ["check", "startup", "--outfile", profile, ...args],
    resolve(REPO_ROOT, dirname(worker.config)),
  );
  const active = /Active:\s*([\d.]+)\s*ms(?:\s*\(including\s*([\d.]+)\s*ms garbage collection\))?/.exec(output);
  if (!active) throw new Error(`wrangler check startup printed no "Active" time:\n${output.slice(-2000)}`);
  return { activeMs: Number(active[1]), gcMs: Number(active[2] ?? 0), profile };
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

/**
 * Self time per package over start-up profiles, in ms per run, or why it cannot be attributed. `owners[line]` is
 * the input file the bundle's line came from. esbuild names its CommonJS wrappers after their file
 * (`node_modules/ajv/dist/ajv.js`): those frames must land on lines of that file, or the profile is of another build.
 */
function selfTimeByPackage(profiles: CpuProfile[], owners: string[]): Map<string, number> | string {
  const time = new Map<string, number>();
  let named = 0;
  let matched = 0;
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
    for (const frame of byId.values()) {
      const wrapped = frame.functionName.replace(/^(\.\.\/)+/, "");
      if (!/^(node_modules|src)\/\S+\.(m?js|cjs|ts)$/.test(wrapped) || frame.lineNumber < 0) continue;
      named++;
      if (owners[frame.lineNumber] === wrapped) matched++;
    }
    profile.samples.forEach((id, index) => {
      const frame = byId.get(id)!;
      if (frame.functionName === "(idle)" || frame.functionName === "(program)") return;
      const key =
        frame.url && frame.lineNumber >= 0
          ? packageOf(owners[frame.lineNumber] ?? "?")
          : frame.functionName || "(native)";
      time.set(key, (time.get(key) ?? 0) + (profile.timeDeltas[index + 1] ?? 0) / 1000 / profiles.length);
    });
  }
  if (named > 0 && matched / named < 0.9)
    return `the profile's lines do not match the dry-run bundle (${matched} of ${named} module wrappers on their own lines)`;
  return time;
}

/** The input file of every line of a bundle, from esbuild's `// path` comments. */
function lineOwners(bundleText: string): string[] {
  let current = "(bundle prelude)";
  return bundleText.split("\n").map((line) => {
    const comment = /^\/\/ (\S+\.(?:m?js|cjs|ts|json))$/.exec(line);
    // A Worker whose configuration is in a subfolder (the bare server) has its paths relative to that folder.
    if (comment) current = comment[1]!.replace(/^(\.\.\/)+/, "");
    return current;
  });
}

interface Bundle {
  rawKiB: number;
  gzipKiB: number;
  /** The input file of each line of the bundle's main module (meaningful for the unminified build only). */
  owners: string[];
  /** Bytes in the bundle per package (node_modules) or per top-level source folder. */
  byPackage: Map<string, number>;
}

/** The package an input of the bundle belongs to: its node_modules package, else its first two path segments. */
function packageOf(path: string): string {
  const inModules = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (inModules) return inModules[1]!;
  return path.split("/").slice(0, 2).join("/");
}

async function bundle(worker: Worker, dir: string, build: Build): Promise<Bundle> {
  const outdir = join(dir, `${worker.name.replace(/\W/g, "-")}-${build}`);
  const metafile = join(outdir, "meta.json");
  const output = await runWrangler([
    "deploy",
    "--dry-run",
    "--config",
    worker.config,
    "--outdir",
    outdir,
    "--metafile",
    metafile,
    ...buildArgs(build),
  ]);
  const sizes = /Total Upload:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/.exec(output);
  if (!sizes) throw new Error(`wrangler deploy --dry-run printed no size:\n${output.slice(-2000)}`);
  const meta = JSON.parse(await readFile(metafile, "utf8")) as {
    outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
  };
  const byPackage = new Map<string, number>();
  let owners: string[] = [];
  for (const [name, out] of Object.entries(meta.outputs)) {
    if (!name.endsWith(".js")) continue;
    owners = lineOwners(await readFile(resolve(REPO_ROOT, name), "utf8"));
    for (const [path, { bytesInOutput }] of Object.entries(out.inputs))
      byPackage.set(packageOf(path), (byPackage.get(packageOf(path)) ?? 0) + bytesInOutput);
  }
  return { rawKiB: Number(sizes[1]), gzipKiB: Number(sizes[2]), owners, byPackage };
}

const kib = (bytes: number | undefined) => (bytes === undefined ? "-" : (bytes / 1024).toFixed(1));

async function firstCallSection(): Promise<string[]> {
  const runs = new Map<string, FirstCall[]>();
  const key = (worker: Worker, era: Era) => `${worker.name} ${era}`;
  for (let rep = 0; rep < REPS; rep++) {
    for (const era of ERAS) {
      for (const worker of rep % 2 === 0 ? WORKERS : [...WORKERS].reverse()) {
        const result = await firstCall(worker, era);
        runs.set(key(worker, era), [...(runs.get(key(worker, era)) ?? []), result]);
        console.log(
          `  first call ${rep + 1}/${REPS} ${era} ${worker.name}: discovery ${result.discoveryMs.toFixed(0)} ms, token ${result.tokenMs.toFixed(0)} ms, MCP to first answer ${result.mcpMs.toFixed(0)} ms, total ${result.totalMs.toFixed(0)} ms, second call ${result.secondCallMs.toFixed(1)} ms`,
        );
      }
    }
  }
  const lines = [
    `### First answered \`tools/call\` of a new client after start-up (${REPS} fresh \`wrangler dev\` per Worker and era)`,
    "",
    `Median (min-max) in ms. Arbiter calls \`${ARBITER_TOOL}\`; the bare server \`${BARE_TOOL}\`. "MCP" is from the token in hand to the first answer.`,
    "",
    "| Era | Worker | discovery | token | MCP to first answer | total from first request | second call |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  const ratioLines: string[] = [];
  for (const era of ERAS) {
    for (const worker of WORKERS) {
      const rows = runs.get(key(worker, era))!;
      lines.push(
        `| ${era} | ${worker.name} | ${spread(rows.map((r) => r.discoveryMs))} | ${spread(rows.map((r) => r.tokenMs))} | ${spread(rows.map((r) => r.mcpMs))} | ${spread(rows.map((r) => r.totalMs))} | ${spread(
          rows.map((r) => r.secondCallMs),
          1,
        )} |`,
      );
    }
    const ours = runs.get(key(ARBITER, era))!;
    const bare = runs.get(key(BARE, era))!;
    const ratio = (pick: (r: FirstCall) => number) => ours.map((r, index) => pick(r) / pick(bare[index]!));
    ratioLines.push(
      `| ${era} | ${spread(
        ratio((r) => r.mcpMs),
        2,
      )} | ${spread(
        ratio((r) => r.totalMs),
        2,
      )} | ${spread(
        ratio((r) => r.discoveryMs),
        2,
      )} |`,
    );
  }
  return [
    ...lines,
    "",
    "| Era | Arbiter / bare server: MCP to first answer | total | discovery |",
    "| --- | ---: | ---: | ---: |",
    ...ratioLines,
    "",
    "Ratios per repetition (Arbiter's i-th start against the bare server's i-th, adjacent in time), median (min-max).",
    "",
  ];
}

async function startupSection(dir: string, unminified: Map<Worker, Bundle>): Promise<string[]> {
  const builds: Build[] = ["deployed", "unminified"];
  const runs = new Map<string, Startup[]>();
  const key = (worker: Worker, build: Build) => `${worker.name} ${build}`;
  for (let rep = 0; rep < REPS; rep++) {
    for (const build of builds) {
      for (const worker of rep % 2 === 0 ? WORKERS : [...WORKERS].reverse()) {
        const result = await checkStartup(worker, dir, rep, build);
        runs.set(key(worker, build), [...(runs.get(key(worker, build)) ?? []), result]);
        console.log(
          `  check startup ${rep + 1}/${REPS} ${worker.name} (${build}): active ${result.activeMs} ms (GC ${result.gcMs} ms)`,
        );
      }
    }
  }
  const ratios = (build: Build) =>
    runs.get(key(ARBITER, build))!.map((r, index) => r.activeMs / runs.get(key(BARE, build))![index]!.activeMs);
  const attributed = new Map<Worker, Map<string, number> | string>();
  for (const worker of WORKERS) {
    const profiles = await Promise.all(
      runs
        .get(key(worker, "unminified"))!
        .map(async (run) => JSON.parse(await readFile(run.profile, "utf8")) as CpuProfile),
    );
    attributed.set(worker, selfTimeByPackage(profiles, unminified.get(worker)!.owners));
  }
  const ours = attributed.get(ARBITER)!;
  const bare = attributed.get(BARE)!;
  const byPackage =
    typeof ours === "string" || typeof bare === "string"
      ? [`Start-up time by package: not attributed, ${typeof ours === "string" ? ours : bare}.`, ""]
      : [
          `Where the start-up samples of the unminified builds fall (self time, ms per run, mean of ${REPS}; a package's own code, not what it calls; V8 samples about every millisecond, so small entries are noise):`,
          "",
          "| Package or source folder | arbiter | bare server |",
          "| --- | ---: | ---: |",
          ...[...new Set([...ours.keys(), ...bare.keys()])]
            .sort((a, b) => (ours.get(b) ?? 0) + (bare.get(b) ?? 0) - (ours.get(a) ?? 0) - (bare.get(a) ?? 0))
            .slice(0, TOP)
            .map((name) => `| ${name} | ${(ours.get(name) ?? 0).toFixed(1)} | ${(bare.get(name) ?? 0).toFixed(1)} |`),
          "",
        ];
  return [
    `### Start-up CPU (\`wrangler check startup\`, ${REPS} runs per Worker and build)`,
    "",
    '"deployed" is each Worker as its configuration builds it (Arbiter\'s wrangler.toml minifies; the bare server\'s does not), "unminified" the same with `--no-minify`.',
    "",
    "| Worker | build | active CPU, ms | of which GC, ms |",
    "| --- | --- | ---: | ---: |",
    ...builds.flatMap((build) => [
      ...WORKERS.map(
        (worker) =>
          `| ${worker.name} | ${build} | ${spread(
            runs.get(key(worker, build))!.map((r) => r.activeMs),
            1,
          )} | ${spread(
            runs.get(key(worker, build))!.map((r) => r.gcMs),
            1,
          )} |`,
      ),
      `| Arbiter / bare server | ${build} | ${spread(ratios(build), 2)} | |`,
    ]),
    "",
    ...byPackage,
  ];
}

function bundleSection(bundles: Map<Worker, Bundle>, bareMinified: Bundle): string[] {
  const [ours, bare] = [bundles.get(ARBITER)!, bundles.get(BARE)!];
  const top = [...ours.byPackage].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  return [
    "### Bundle (`wrangler deploy --dry-run --metafile`, each Worker as its configuration builds it)",
    "",
    "| Worker | raw KiB | gzip KiB |",
    "| --- | ---: | ---: |",
    `| arbiter (minified by its wrangler.toml) | ${ours.rawKiB.toFixed(0)} | ${ours.gzipKiB.toFixed(0)} |`,
    `| bare server | ${bare.rawKiB.toFixed(0)} | ${bare.gzipKiB.toFixed(0)} |`,
    `| Arbiter / bare server | ${(ours.rawKiB / bare.rawKiB).toFixed(2)} | ${(ours.gzipKiB / bare.gzipKiB).toFixed(2)} |`,
    `| bare server built with \`--minify\` | ${bareMinified.rawKiB.toFixed(0)} | ${bareMinified.gzipKiB.toFixed(0)} |`,
    `| Arbiter / bare server, both minified | ${(ours.rawKiB / bareMinified.rawKiB).toFixed(2)} | ${(ours.gzipKiB / bareMinified.gzipKiB).toFixed(2)} |`,
    "",
    `Arbiter's ${TOP} biggest packages (or source folders) by bytes in the bundle (KiB, before gzip), beside the same package in the bare server's bundle:`,
    "",
    "| Package | arbiter | bare server |",
    "| --- | ---: | ---: |",
    ...top.map(([name, bytes]) => `| ${name} | ${kib(bytes)} | ${kib(bare.byPackage.get(name))} |`),
    "",
  ];
}

async function main(): Promise<void> {
  const started = new Date();
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
  const dir = await mkdtemp(join(tmpdir(), "arbiter-coldstart-"));
  const sections: string[] = [];
  try {
    if (!ONLY || ONLY === "first-call") sections.push(...(await firstCallSection()));
    if (!ONLY || ONLY === "startup" || ONLY === "bundle") {
      // The start-up profiles are read against the unminified dry-run bundles' lines, so those are built first.
      const unminified = new Map<Worker, Bundle>();
      if (ONLY !== "bundle") {
        for (const worker of WORKERS) unminified.set(worker, await bundle(worker, dir, "unminified"));
        sections.push(...(await startupSection(dir, unminified)));
      }
      if (ONLY !== "startup") {
        const deployed = new Map<Worker, Bundle>();
        for (const worker of WORKERS) deployed.set(worker, await bundle(worker, dir, "deployed"));
        sections.push(...bundleSection(deployed, await bundle(BARE, dir, "minified")));
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const endLoad = loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
  console.log(
    [
      "",
      "## Cold start and bundle: Arbiter vs the bare MCP server (`npm run bench:coldstart`)",
      "",
      `Run ${started.toISOString()} on ${cpus().length} CPU(s), ${cpus()[0]?.model.trim() ?? "unknown CPU"}, Node ${process.version}. Load average at start: ${load}; at the end: ${endLoad}.`,
      "",
      ...sections,
    ].join("\n"),
  );
}

await main();
