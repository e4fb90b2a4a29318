/**
 * `npm run bench:mcp`: what governance costs on a real MCP `tools/call`, measured over ONE `wrangler dev` of this
 * Worker (loopback only), in both protocol eras /mcp serves:
 *  - 2025-11-25: a session (`initialize`, then `Mcp-Session-Id`), answered by the session Durable Object (McpAgent);
 *  - 2026-07-28: stateless requests (the per-request `_meta` envelope, no session), answered by the Worker itself
 *    (createMcpHandler, one SDK v2 server per request).
 * Rows per era, in the same run:
 *  - bare: `bench_bare` (src/mcp/bench-bare.ts), answered by the same OAuth front and the same server of that era
 *    with no scope check, rate limit or audit; on only because this script passes ARBITER_BENCH_BARE=true;
 *  - governed: `whoami`, the cheapest governed tool: scope check, rate-limit decision, its handler (which shows the
 *    remaining quota of every tool), one audit record;
 *  - noop: `bench_governed`, bench_bare's handler through the governed core: governance alone;
 *  - telemetry: `whoami` on a second `wrangler dev` of the same Worker exporting OpenTelemetry to an OTLP/HTTP
 *    receiver on loopback (this script's), compared with `whoami` with telemetry off (--no-telemetry leaves it out);
 *  - bare-server: `bench_bare` on a third `wrangler dev`, of the bare MCP server a newcomer writes from the Cloudflare
 *    docs (bench/bare-server/: McpAgent for sessions, createMcpHandler with an SDK 2.x server for 2026-07-28, the same
 *    OAuthProvider front, nothing else); `governed` and `noop` are compared with it too (--no-bare-server leaves it out);
 *  - recorded-floor: `bench_recorded` on the bare MCP server, bench_bare's answer after one record stored where
 *    Arbiter stores its audit record before the answer (the session object's SQLite; statelessly, a Durable Object),
 *    against its `bench_bare`: what that costs with none of Arbiter's code, under the governed row's targets (left
 *    out with the bare server).
 * Each round takes CLIENTS OAuth clients (each its own token, obtained over HTTP with the development sign-in, and
 * reused by later rounds only while no client can reach its quota), opens their sessions (2025-11-25), makes one
 * unmeasured warm-up call per client,
 * then every client makes CALLS calls one after another, all clients at once: a bounded concurrent load. Bare and
 * governed rounds alternate in ABBA order (a shared machine's load drifts); ratios are taken per adjacent pair of
 * rounds and reported as the median with the range over the pairs.
 * With --paired, after every second round a round runs both tools in the same sessions, alternating call by call
 * (both see the same load; under saturation that ratio shows queueing, not cost).
 * Writes its section of docs/benchmark-results.md (between the bench:mcp markers) and its headline rows of
 * BENCHMARKS.md, and leaves the rest of both files alone.
 *
 * Options: --clients N (50), --calls N (20, at most 29: the shipped quota is 30 per 60 s per client), --rounds N
 * (4 per row and era), --round-timeout-ms N (60000), --era 2025-11-25|2026-07-28 (both), --paired, --no-telemetry,
 * --no-bare-server, --no-write.
 */
import { cpus, loadavg } from "node:os";
import { RESULTS, updateHeadlines, writeSection, type Headline } from "./headlines";
import { startWranglerDev } from "../test/helpers/wrangler-dev";
import { obtainToken } from "../test/helpers/oauth-http";
import { obtainBareToken } from "./bare-server/token";
import { openSession, SESSION_ERA, STATELESS_ERA, type Era } from "./mcp-client";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = Number(process.argv[index + 1]);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} needs a positive integer (got ${process.argv[index + 1]})`);
  return value;
}

const CLIENTS = option("clients", 50);
const CALLS = option("calls", 20);
const ROUNDS = option("rounds", 4);
const ROUND_TIMEOUT_MS = option("round-timeout-ms", 60_000);
if (CALLS > 29)
  throw new Error("--calls must be at most 29: each session also makes one warm-up call and the quota is 30 per 60 s");

/** A `wrangler dev` the rows run on: the Worker with telemetry off (main) or on, or the bare MCP server. */
type Server = "main" | "telemetry" | "bareServer";

/** A reference row and the targets of the ratios against it (p50 at most, throughput at least). */
interface Against {
  lane: string;
  p50: number;
  throughput: number;
}

interface Lane {
  /** Row name in the report. */
  name: string;
  tool: string;
  /** What the row runs, for the report. */
  runs: string;
  /** The server it runs on. */
  server: Server;
  /** The rows its ratios are taken against, and their targets. */
  against?: Against[];
}

const WITH_TELEMETRY = !process.argv.includes("--no-telemetry");
const WITH_BARE_SERVER = !process.argv.includes("--no-bare-server");
const BARE_SERVER = "bare-server";
/** The targets of issue 20, against `bench_bare` and, the same, against the bare MCP server. */
const againstBare = (p50: number, tput: number): Against[] => [
  { lane: "bare", p50, throughput: tput },
  ...(WITH_BARE_SERVER ? [{ lane: BARE_SERVER, p50, throughput: tput }] : []),
];
const LANES: Lane[] = [
  {
    name: "bare",
    tool: "bench_bare",
    server: "main",
    runs: "`bench_bare`: same OAuth front and server of its era, no scope check, rate limit or audit",
  },
  {
    name: "governed",
    tool: "whoami",
    server: "main",
    runs: "`whoami`: scope check, rate-limit decision, handler (quota of every tool), one audit record",
    against: againstBare(1.1, 0.8),
  },
  {
    name: "noop",
    tool: "bench_governed",
    server: "main",
    runs: "`bench_governed`: bench_bare's handler through the governed core (governance alone)",
    against: againstBare(1.1, 0.85),
  },
  ...(WITH_TELEMETRY
    ? [
        {
          name: "telemetry",
          tool: "whoami",
          server: "telemetry" as const,
          runs: "`whoami` with OpenTelemetry exported (OTLP/HTTP to a loopback receiver)",
          against: [{ lane: "governed", p50: 1.05, throughput: 0.95 }],
        },
      ]
    : []),
  ...(WITH_BARE_SERVER
    ? [
        {
          name: BARE_SERVER,
          tool: "bench_bare",
          server: "bareServer" as const,
          runs: "`bench_bare` on the bare MCP server (bench/bare-server/: McpAgent / createMcpHandler behind OAuthProvider, nothing else)",
        },
        {
          name: "recorded-floor",
          tool: "bench_recorded",
          server: "bareServer" as const,
          runs: "`bench_recorded` on the bare MCP server: bench_bare's answer after one record stored (sessions: in the session object's SQLite; stateless: one awaited RPC to a SQLite Durable Object)",
          against: [{ lane: BARE_SERVER, p50: 1.1, throughput: 0.8 }],
        },
      ]
    : []),
];

function erasToRun(): Era[] {
  const index = process.argv.indexOf("--era");
  if (index < 0) return [SESSION_ERA, STATELESS_ERA];
  const era = process.argv[index + 1];
  if (era !== SESSION_ERA && era !== STATELESS_ERA)
    throw new Error(`--era needs ${SESSION_ERA} or ${STATELESS_ERA} (got ${era})`);
  return [era];
}
const ERAS = erasToRun();

async function inBatches<T>(count: number, width: number, make: (index: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) {
        const index = next++;
        out[index] = await make(index);
      }
    }),
  );
  return out;
}

interface RoundResult {
  era: Era;
  lane: string;
  latencies: number[];
  wallMs: number;
  failures: number;
  timedOut: boolean;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** The middle value, or the mean of the two middle values of an even count (rounds come in small even numbers). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function runRound(base: string, era: Era, lane: Lane, tokens: string[]): Promise<RoundResult> {
  const sessions = await inBatches(tokens.length, 10, (index) => openSession(base, tokens[index]!, era));
  await inBatches(sessions.length, 10, (index) => sessions[index]!.call(lane.tool, 1));
  const latencies: number[] = [];
  let failures = 0;
  let firstError: unknown;
  const deadline = performance.now() + ROUND_TIMEOUT_MS;
  const start = performance.now();
  await Promise.all(
    sessions.map(async (session) => {
      for (let call = 0; call < CALLS && performance.now() < deadline; call++) {
        const began = performance.now();
        try {
          await session.call(lane.tool, call + 2);
          latencies.push(performance.now() - began);
        } catch (error) {
          failures++;
          firstError ??= error;
        }
      }
    }),
  );
  const wallMs = performance.now() - start;
  if (firstError)
    console.error(`  ${era} ${lane.name}: ${failures} failed calls, first: ${String(firstError).slice(0, 300)}`);
  return {
    era,
    lane: lane.name,
    latencies: latencies.sort((a, b) => a - b),
    wallMs,
    failures,
    timedOut: latencies.length + failures < sessions.length * CALLS,
  };
}

interface PairedResult {
  era: Era;
  bare: number[];
  governed: number[];
  failures: number;
}

/**
 * Both tools in the same sessions at the same moments: each session alternates bare and governed calls (half
 * the sessions start with each), so both rows see the same machine load, whatever else the machine is doing.
 */
async function runPairedRound(base: string, era: Era, tokens: string[]): Promise<PairedResult> {
  const [bareLane, governedLane] = LANES as [Lane, Lane];
  const sessions = await inBatches(tokens.length, 10, (index) => openSession(base, tokens[index]!, era));
  await inBatches(sessions.length, 10, async (index) => {
    await sessions[index]!.call(bareLane.tool, 1);
    await sessions[index]!.call(governedLane.tool, 2);
  });
  const out: PairedResult = { era, bare: [], governed: [], failures: 0 };
  let firstError: unknown;
  const deadline = performance.now() + ROUND_TIMEOUT_MS;
  await Promise.all(
    sessions.map(async (session, index) => {
      for (let call = 0; call < 2 * CALLS && performance.now() < deadline; call++) {
        const governed = (call + index) % 2 === 1;
        const began = performance.now();
        try {
          await session.call(governed ? governedLane.tool : bareLane.tool, call + 3);
          (governed ? out.governed : out.bare).push(performance.now() - began);
        } catch (error) {
          out.failures++;
          firstError ??= error;
        }
      }
    }),
  );
  if (firstError)
    console.error(`  ${era} paired: ${out.failures} failed calls, first: ${String(firstError).slice(0, 300)}`);
  out.bare.sort((a, b) => a - b);
  out.governed.sort((a, b) => a - b);
  return out;
}

function format(ms: number): string {
  return `${ms.toFixed(1)} ms`;
}

/** The shipped quota of `whoami` (policies/rate-limits.json default): calls per client per window. */
const QUOTA = 30;
const WINDOW_MS = 60_000;

/**
 * OAuth clients reused across rounds while their `whoami` quota allows: a governed round spends CALLS + 1 calls of
 * each client's window (a window opens at a client's first call and lasts 60 s), a bare round spends none. Getting
 * a token is a whole OAuth flow, so reuse keeps the rounds coming without changing what a round measures.
 */
class ClientPool {
  /** Per client, its window of each governed tool (quotas are per tool). */
  private readonly clients: Array<{ token: string; windows: Map<string, { start: number; used: number }> }> = [];
  constructor(private readonly obtain: () => Promise<string>) {}

  /** `count` distinct clients that each have `governedCalls` calls of `tool` left in their window (new ones when needed). */
  async take(count: number, tool: string, governedCalls: number): Promise<string[]> {
    const now = Date.now();
    const picked: Array<(typeof this.clients)[number]> = [];
    const windowOf = (client: (typeof this.clients)[number]) => {
      let window = client.windows.get(tool);
      if (!window) client.windows.set(tool, (window = { start: 0, used: 0 }));
      return window;
    };
    for (const client of this.clients) {
      if (picked.length === count) break;
      const window = windowOf(client);
      // The server opens the window at the client's first call, a few seconds after it was taken (sessions are
      // opened first): 20 s of margin past the end of the window counted from here.
      if (now >= window.start + WINDOW_MS + 20_000) window.used = 0;
      if (window.used + governedCalls <= QUOTA) picked.push(client);
    }
    const fresh = await inBatches(count - picked.length, 10, async () => ({
      token: await this.obtain(),
      windows: new Map(),
    }));
    this.clients.push(...fresh);
    picked.push(...fresh);
    for (const client of picked) {
      if (governedCalls === 0) continue;
      const window = windowOf(client);
      if (window.used === 0) window.start = now;
      window.used += governedCalls;
    }
    return picked.map((client) => client.token);
  }
}

/** An OTLP/HTTP receiver on loopback for the telemetry row: accepts and counts exports. */
async function startOtlpReceiver(): Promise<{ url: string; exports: () => number; close(): Promise<void> }> {
  const { createServer } = await import("node:http");
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      exports++;
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    exports: () => exports,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

const throughput = (result: RoundResult) => (result.latencies.length / result.wallMs) * 1000;

async function main(): Promise<void> {
  const startedAt = new Date();
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
  const withPaired = process.argv.includes("--paired");
  console.log(
    `bench:mcp: ${CLIENTS} clients x ${CALLS} calls, ${ROUNDS} rounds per row, protocol ${ERAS.join(" and ")}${withPaired ? ", paired rounds" : ""}`,
  );
  const dev = await startWranglerDev({ vars: { ARBITER_DEV_SIGN_IN: "true", ARBITER_BENCH_BARE: "true" } });
  const receiver = WITH_TELEMETRY ? await startOtlpReceiver() : undefined;
  const traced = receiver
    ? await startWranglerDev({
        vars: { ARBITER_DEV_SIGN_IN: "true", ARBITER_BENCH_BARE: "true", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
      })
    : undefined;
  const bareServer = WITH_BARE_SERVER
    ? await startWranglerDev({ config: "bench/bare-server/wrangler.toml" })
    : undefined;
  const results: RoundResult[] = [];
  const paired: PairedResult[] = [];
  try {
    const poolOf = (url: string) =>
      new ClientPool(() => obtainToken(url, { user: "ana", scope: "orders.read", resource: `${url}/mcp` }));
    const pools: Record<Server, ClientPool | undefined> = {
      main: poolOf(dev.url),
      telemetry: traced ? poolOf(traced.url) : undefined,
      bareServer: bareServer ? new ClientPool(() => obtainBareToken(bareServer.url)) : undefined,
    };
    const urls: Record<Server, string> = {
      main: dev.url,
      telemetry: traced?.url ?? dev.url,
      bareServer: bareServer?.url ?? dev.url,
    };
    // ABBA: the rows in one order, then the reverse, ... so no row always runs first in a drifting machine. The eras
    // take turns round by round too, so both see the same stretch of the machine's load.
    const order: Array<{ era: Era; lane: Lane }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const lanes = round % 2 === 0 ? [...LANES] : [...LANES].reverse();
      for (const era of ERAS) for (const lane of lanes) order.push({ era, lane });
    }
    for (const [index, { era, lane }] of order.entries()) {
      // bench_bare has no quota on either server: its clients are reused by every round.
      const tokens = await pools[lane.server]!.take(CLIENTS, lane.tool, lane.tool === "bench_bare" ? 0 : CALLS + 1);
      const result = await runRound(urls[lane.server], era, lane, tokens);
      results.push(result);
      console.log(
        `  round ${index + 1}/${order.length} ${era} ${lane.name.padEnd(8)} p50 ${format(quantile(result.latencies, 0.5))} p95 ${format(quantile(result.latencies, 0.95))} ` +
          `${throughput(result).toFixed(0)} calls/s${result.failures ? ` (${result.failures} failed)` : ""}`,
      );
      if (index % 2 === 1 && withPaired) {
        const pairedRound = await runPairedRound(dev.url, era, await pools.main!.take(CLIENTS, "whoami", CALLS + 1));
        paired.push(pairedRound);
        console.log(
          `  paired round ${era}: p50 bare ${format(quantile(pairedRound.bare, 0.5))} governed ${format(quantile(pairedRound.governed, 0.5))}, ` +
            `p95 bare ${format(quantile(pairedRound.bare, 0.95))} governed ${format(quantile(pairedRound.governed, 0.95))}`,
        );
      }
    }
    if (receiver) console.log(`  telemetry: ${receiver.exports()} OTLP exports received`);
  } finally {
    await dev.stop();
    await traced?.stop();
    await bareServer?.stop();
    await receiver?.close();
  }
  report(results, paired, startedAt, load);
}

const range = (values: number[]) => `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}`;

/** The headline rows of this run (BENCHMARKS.md): governed / bare and telemetry on / off, per era. */
const headlines: Headline[] = [];
const eraName = (era: Era) => (era === SESSION_ERA ? `${era} sessions` : `${era} stateless`);

function headlineOf(
  era: Era,
  lane: Lane,
  against: Against,
  p50: number,
  p50Range: string,
  tput: number,
  tputRange: string,
): void {
  const run = `${new Date().toISOString().slice(0, 10)}, \`npm run bench:mcp\``;
  const spread = (range: string) => `${range} (${ROUNDS} rounds)`;
  if (lane.name === "governed" && against.lane === "bare") {
    headlines.push(
      {
        measure: `Governed / bare MCP call, p50 latency, ${eraName(era)}`,
        ratio: p50,
        target: { op: "<=", value: against.p50 },
        spread: spread(p50Range),
        run,
      },
      {
        measure: `Governed / bare MCP call, throughput, ${eraName(era)}`,
        ratio: tput,
        target: { op: ">=", value: against.throughput },
        spread: spread(tputRange),
        run,
      },
    );
  }
  if (lane.name === "telemetry")
    headlines.push({
      measure: `Telemetry on / off, p50 latency, ${eraName(era)}`,
      ratio: p50,
      target: { op: "<=", value: against.p50 },
      spread: spread(p50Range),
      run,
    });
}

/** The rows and ratios of one era, as Markdown lines. */
function eraReport(era: Era, results: RoundResult[], paired: PairedResult[]): string[] {
  const byLane = (name: string) => results.filter((result) => result.era === era && result.lane === name);
  const row = (lane: Lane) => {
    const rounds = byLane(lane.name);
    const p50s = rounds.map((r) => quantile(r.latencies, 0.5));
    const p95s = rounds.map((r) => quantile(r.latencies, 0.95));
    const tputs = rounds.map(throughput);
    const failed = rounds.reduce((sum, r) => sum + r.failures, 0);
    return `| ${lane.name} | ${lane.runs} | ${format(median(p50s))} (${p50s.map((v) => v.toFixed(1)).join(", ")}) | ${format(median(p95s))} (${p95s.map((v) => v.toFixed(1)).join(", ")}) | ${median(tputs).toFixed(0)} (${tputs.map((v) => v.toFixed(0)).join(", ")}) | ${failed} |`;
  };
  /** Ratio rows of `lane` against one reference row, round by round (round i of each ran in the same group). */
  const ratios = (lane: Lane, against: Against) => {
    const base = byLane(against.lane);
    const pairs = byLane(lane.name)
      .map((g, index) => ({ g, b: base[index]! }))
      .filter((pair) => pair.b);
    const p50Ratios = pairs.map(({ b, g }) => quantile(g.latencies, 0.5) / quantile(b.latencies, 0.5));
    const p95Ratios = pairs.map(({ b, g }) => quantile(g.latencies, 0.95) / quantile(b.latencies, 0.95));
    const tputRatios = pairs.map(({ b, g }) => throughput(g) / throughput(b));
    const p50 = median(p50Ratios);
    const tput = median(tputRatios);
    headlineOf(era, lane, against, p50, range(p50Ratios), tput, range(tputRatios));
    return [
      `| ${lane.name} / ${against.lane}: p50 latency | ${p50.toFixed(2)} | ${range(p50Ratios)} | <= ${against.p50.toFixed(2)} (${p50 <= against.p50 ? "met" : "not met"}) |`,
      `| ${lane.name} / ${against.lane}: p95 latency | ${median(p95Ratios).toFixed(2)} | ${range(p95Ratios)} | |`,
      `| ${lane.name} / ${against.lane}: throughput | ${tput.toFixed(2)} | ${range(tputRatios)} | >= ${against.throughput.toFixed(2)} (${tput >= against.throughput ? "met" : "not met"}) |`,
    ];
  };
  const eraPaired = paired.filter((round) => round.era === era);
  const pairedP50 = eraPaired.map((round) => quantile(round.governed, 0.5) / quantile(round.bare, 0.5));
  const pairedP95 = eraPaired.map((round) => quantile(round.governed, 0.95) / quantile(round.bare, 0.95));
  const how =
    era === SESSION_ERA
      ? "sessions: `initialize`, then `Mcp-Session-Id`, served by the McpAgent Durable Object"
      : "stateless requests: `_meta` envelope, no session, served by createMcpHandler in the Worker";
  return [
    `### Protocol ${era} (${how})`,
    "",
    "| Row | What it runs | p50 median (per round) | p95 median (per round) | calls/s median (per round) | failed calls |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
    ...LANES.map(row),
    "",
    `| Ratio (${era}) | Median | Range over ${ROUNDS} rounds | Target |`,
    "| --- | ---: | ---: | --- |",
    ...LANES.flatMap((lane) => (lane.against ?? []).flatMap((against) => ratios(lane, against))),
    ...(eraPaired.length === 0
      ? []
      : [
          `| governed / bare: p50 latency, paired rounds | ${median(pairedP50).toFixed(2)} | ${range(pairedP50)} | |`,
          `| governed / bare: p95 latency, paired rounds | ${median(pairedP95).toFixed(2)} | ${range(pairedP95)} | |`,
        ]),
    "",
  ];
}

function report(results: RoundResult[], paired: PairedResult[], startedAt: Date, load: string): void {
  const lines = [
    "<!-- bench:mcp start -->",
    "## Governed MCP call vs bare (`npm run bench:mcp`)",
    "",
    "Produced by `npm run bench:mcp` (bench/mcp.bench.ts), which rewrites only this section. One `wrangler dev` of the",
    "Worker on loopback serves every row but `telemetry`, which a second one (the same Worker, exporting OpenTelemetry to",
    "a receiver on loopback) serves, and `bare-server` (below); `bench_bare` and `bench_governed` exist only because the script passes `ARBITER_BENCH_BARE=true`",
    "with a loopback `PUBLIC_URL` (src/mcp/bench-bare.ts), and is answered by the same OAuth front and the same server",
    "of its era as `whoami`.",
    ...(WITH_BARE_SERVER
      ? [
          "`bare-server` runs on a third `wrangler dev`: a bare MCP server as the Cloudflare docs write one (bench/bare-server/:",
          "McpAgent with an SDK 1.x server for 2025-11-25 sessions, createMcpHandler with an SDK 2.x server for 2026-07-28,",
          "one constant tool, behind OAuthProvider with OAuth tokens; its /authorize approves at once, benchmark only).",
        ]
      : ["The bare MCP server's rows were left out (--no-bare-server)."]),
    `Each round: ${CLIENTS} OAuth clients (reused only while none can reach its quota; new sessions for 2025-11-25), one unmeasured warm-up`,
    `call per client, then all ${CLIENTS} at once each making ${CALLS} sequential \`tools/call\`s. Latency is per call as the client sees`,
    "it; throughput is calls answered per second of the round's wall time. Rows alternate in ABBA order and the eras take",
    "turns; ratios are taken per round group (each row's round i against its reference row's round i; median, then range).",
    "The load generator runs on the same machine as workerd, so all rows share its CPU.",
    "",
    `Run ${startedAt.toISOString()} on ${cpus().length} CPU(s), ${cpus()[0]?.model.trim() ?? "unknown CPU"}, Node ${process.version}. Load average at start: ${load}.`,
    "",
    ...ERAS.flatMap((era) => eraReport(era, results, paired)),
    ...(paired.length === 0
      ? []
      : [
          "Paired rounds: the same clients alternate `bench_bare` and `whoami` calls, so both tools are measured under the",
          "same load at the same moments. Under this load a call's latency is mostly its wait in the saturated server's",
          "queue, so this ratio stays near 1 whatever each call costs; the separate rounds' throughput ratio shows the cost.",
          "",
        ]),
    "<!-- bench:mcp end -->",
  ];
  const section = lines.join("\n");
  console.log(`\n${section}\n`);
  if (process.argv.includes("--no-write")) return;
  writeSection(RESULTS, "bench:mcp", section);
  updateHeadlines(headlines);
}

await main();
