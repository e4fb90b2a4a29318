/**
 * `npm run bench:profile`: what a tools/call costs the server, and where that cost goes. Starts one `wrangler dev`
 * of this Worker (bench tools on, as bench:mcp does) and, in one run:
 *  1. CPU per call: for each tool of --tools, in rotated order over --rounds rounds, CLIENTS new clients make CALLS
 *     sequential calls each, all at once, and the server's CPU time (user + system of wrangler dev's whole process
 *     tree, read from /proc) is divided by the calls. CPU time, unlike latency, hardly moves with the machine's
 *     load, so two tools compare well even on a shared machine; the first tool is the baseline of the ratios.
 *  2. With --profile TOOL: one more round of TOOL with V8's CPU profiler attached through wrangler's DevTools
 *     inspector, printed as self time by source (our files under src/, each package, the runtime), our functions'
 *     inclusive time, runtime and native time by caller, and the hottest functions. The Worker and its Durable
 *     Objects share one isolate under wrangler dev, so one profile holds the front, the session object, the
 *     coordinators and the audit store. (The profiler samples wall time while JavaScript runs: on a loaded machine
 *     its milliseconds grow; its shares stay useful.)
 *
 * Options: --tools a,b,c (bench_bare,bench_governed,whoami), --rounds N (3; 0 for the profile alone),
 * --profile TOOL, --era 2025-11-25|2026-07-28 (2025-11-25), --clients N (20), --calls N (20, at most 29),
 * --top N (40), --out FILE (with --profile: also write the .cpuprofile, and the bundle beside it, for DevTools).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { freePort, startWranglerDev } from "../test/helpers/wrangler-dev";
import { obtainToken } from "../test/helpers/oauth-http";
import { bundleModules, devtools, type Profile, type ProfileNode } from "./devtools";

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : (process.argv[index + 1] ?? fallback);
}
const TOOLS = argument("tools", "bench_bare,bench_governed,whoami").split(",").filter(Boolean);
const ROUNDS = Number(argument("rounds", "3"));
const PROFILE = argument("profile", "");
const SETTLE_MS = Number(argument("settle-ms", "1500"));
/** The tool the calls below make (set per row). */
let TOOL = TOOLS[0] ?? "whoami";
const ERA = argument("era", "2025-11-25");
const CLIENTS = Number(argument("clients", "20"));
const CALLS = Number(argument("calls", "20"));
const TOP = Number(argument("top", "40"));
const OUT = argument("out", "");
if (!["2025-11-25", "2026-07-28"].includes(ERA)) throw new Error(`--era needs 2025-11-25 or 2026-07-28 (got ${ERA})`);
if (!(CALLS >= 1 && CALLS <= 29))
  throw new Error("--calls must be 1 to 29: the shipped quota is 30 calls per 60 s per client");

const HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

async function callOnce(base: string, headers: Record<string, string>, id: number): Promise<void> {
  const params: Record<string, unknown> = { name: TOOL, arguments: {} };
  if (ERA === "2026-07-28") {
    params._meta = {
      "io.modelcontextprotocol/protocolVersion": ERA,
      "io.modelcontextprotocol/clientInfo": { name: "bench-profile", version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
  }
  const response = await fetch(`${base}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }),
  });
  const text = await response.text();
  if (response.status !== 200 || text.includes('"isError":true') || text.includes('"error":'))
    throw new Error(`${TOOL}: HTTP ${response.status}: ${text.slice(0, 300)}`);
}

async function clientHeaders(base: string, token: string): Promise<Record<string, string>> {
  const headers = { ...HEADERS, Authorization: `Bearer ${token}` };
  if (ERA === "2026-07-28")
    return { ...headers, "MCP-Protocol-Version": ERA, "Mcp-Method": "tools/call", "Mcp-Name": TOOL };
  const init = await fetch(`${base}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: ERA, capabilities: {}, clientInfo: { name: "bench-profile", version: "1.0.0" } },
    }),
  });
  await init.text();
  const sessionId = init.headers.get("mcp-session-id");
  if (!sessionId) throw new Error(`initialize failed: HTTP ${init.status}`);
  const sessionHeaders = { ...headers, "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": ERA };
  await (
    await fetch(`${base}/mcp`, {
      method: "POST",
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    })
  ).text();
  return sessionHeaders;
}

/** The file a bundle line belongs to (set once the bundle's source is read). */
let moduleAt: (line: number) => string | undefined = () => undefined;

function frameSource(frame: ProfileNode["callFrame"]): string {
  if (frame.url.endsWith("index.js")) return sourceOf(moduleAt(frame.lineNumber) ?? frame.url);
  return sourceOf(frame.url);
}

/** Which source a frame belongs to: one of our files, a package, or the runtime. */
function sourceOf(url: string): string {
  if (!url) return "(runtime / native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const ours = /(src\/.*)$/.exec(url);
  if (ours) return ours[1]!;
  return url.replace(/^.*\//, "");
}

function summarise(profile: Profile): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  // A sample is charged the time since the previous one, but at most twice the sampling interval: most of a run's
  // time falls in gaps of milliseconds in which the sampler saw nothing (workerd outside JavaScript: its event loop,
  // the local Durable Objects' I/O, the load generator on the same cores), and charging a gap to the first frame
  // after it (an await's resumption) made that frame look like the hottest (an RPC's caller: hundreds of us a call).
  const interval = median(profile.timeDeltas);
  const self = new Map<number, number>();
  let unseenUs = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const charged = Math.min(delta, 2 * interval);
    unseenUs += delta - charged;
    self.set(id, (self.get(id) ?? 0) + charged);
  });
  const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
  const idleUs = [...self]
    .filter(([id]) => ["(idle)", "(program)"].includes(byId.get(id)?.callFrame.functionName ?? ""))
    .reduce((a, [, us]) => a + us, 0);
  const busyUs = totalUs - idleUs;
  const bySource = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    if (["(idle)", "(program)"].includes(frame.functionName)) continue;
    const source = frame.functionName === "(garbage collector)" ? "(garbage collector)" : frameSource(frame);
    bySource.set(source, (bySource.get(source) ?? 0) + us);
    const name = `${frame.functionName || "(anonymous)"} ${frame.url.endsWith("index.js") ? (moduleAt(frame.lineNumber) ?? "index.js") : sourceOf(frame.url)}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  }
  // Native and runtime frames (SQL exec, storage, crypto) charged to the nearest frame of ours or of a package.
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const nativeByCaller = new Map<string, number>();
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.url || ["(idle)", "(program)", "(garbage collector)"].includes(frame.functionName)) continue;
    let caller = parentOf.get(id);
    while (caller !== undefined && !byId.get(caller)!.callFrame.url) caller = parentOf.get(caller);
    const callerFrame = caller === undefined ? undefined : byId.get(caller)!.callFrame;
    const label = `${frame.functionName || "(anonymous)"} <- ${callerFrame ? `${callerFrame.functionName || "(anonymous)"} ${frameSource(callerFrame)}` : "(event loop)"}`;
    nativeByCaller.set(label, (nativeByCaller.get(label) ?? 0) + us);
  }
  // Inclusive time of our own functions (each counted once per sample), to see what a step costs with its callees.
  const inclusive = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const source = frame.url ? frameSource(frame) : "";
      if (!source.startsWith("src/")) continue;
      const label = `${frame.functionName || "(anonymous)"} ${source}:${frame.lineNumber + 1}`;
      if (seen.has(label)) continue;
      seen.add(label);
      inclusive.set(label, (inclusive.get(label) ?? 0) + us);
    }
  }
  const calls = CLIENTS * CALLS;
  const row = (label: string, us: number) =>
    `${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / busyUs).toFixed(1).padStart(5)}% ${(us / calls).toFixed(0).padStart(6)} us/call  ${label}`;
  console.log(
    `\n${TOOL} (${ERA}): ${calls} calls; isolate busy ${(busyUs / 1000).toFixed(0)} ms of ${(totalUs / 1000).toFixed(0)} ms sampled (every ${interval} us), ${(busyUs / calls).toFixed(0)} us per call; ${(unseenUs / 1000).toFixed(0)} ms more in gaps the sampler did not see\n`,
  );
  console.log("Self time by source:");
  for (const [source, us] of [...bySource].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(row(source, us));
  console.log("\nOur functions, inclusive time:");
  for (const [label, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(row(label, us));
  console.log("\nRuntime and native time by caller:");
  for (const [label, us] of [...nativeByCaller].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(row(label, us));
  console.log("\nHottest functions (self time):");
  for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(row(name, us));
}

/** CPU seconds (user + system) used so far by a process and all its descendants, from /proc (Linux). */
function treeCpuMs(rootPid: number): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name (which may hold spaces) start after the last ')'.
      const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
      stats.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // The process ended while we read.
    }
  }
  let ticks = 0;
  const pending = [rootPid];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    ticks += stats.get(pid)?.ticks ?? 0;
    for (const [child, stat] of stats) if (stat.ppid === pid) pending.push(child);
  }
  return ticks * (1000 / CLOCK_TICKS_PER_SECOND);
}
/** USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK). */
const CLOCK_TICKS_PER_SECOND = 100;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function newClients(base: string): Promise<Array<Record<string, string>>> {
  const tokens: string[] = [];
  for (let index = 0; index < CLIENTS; index++)
    tokens.push(await obtainToken(base, { user: "ana", scope: "orders.read", resource: `${base}/mcp` }));
  const clients = await Promise.all(tokens.map((token) => clientHeaders(base, token)));
  await Promise.all(clients.map((headers) => callOnce(base, headers, 1)));
  return clients;
}

/** All clients at once, each making CALLS sequential calls; resolves with the wall time. */
async function load(base: string, clients: Array<Record<string, string>>): Promise<number> {
  const started = performance.now();
  await Promise.all(
    clients.map(async (headers) => {
      for (let call = 0; call < CALLS; call++) await callOnce(base, headers, call + 2);
    }),
  );
  return performance.now() - started;
}

const inspectorPort = await freePort();
const dev = await startWranglerDev({
  vars: { ARBITER_DEV_SIGN_IN: "true", ARBITER_BENCH_BARE: "true" },
  inspectorPort,
  // A profile is read against the bundle's `// path` comments, which only an unminified build has; without --profile
  // the Worker is built as deployed (minified).
  minify: PROFILE ? false : undefined,
});
try {
  if (dev.pid === undefined) throw new Error("wrangler dev has no process id");
  const calls = CLIENTS * CALLS;
  // CPU per call: the server's whole process tree (wrangler's proxy, workerd and its local KV and Durable Objects),
  // each tool in its own sessions, rounds in rotated order; SETTLE_MS after the calls lets work they left behind
  // (audit drains, counter writes) run, and is spent in every row alike.
  const cpu = new Map<string, number[]>(TOOLS.map((tool) => [tool, []]));
  const wall = new Map<string, number[]>(TOOLS.map((tool) => [tool, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let index = 0; index < TOOLS.length; index++) {
      const tool = TOOLS[(index + round) % TOOLS.length]!;
      TOOL = tool;
      const clients = await newClients(dev.url);
      await new Promise((done) => setTimeout(done, SETTLE_MS));
      const before = treeCpuMs(dev.pid);
      wall.get(tool)!.push(await load(dev.url, clients));
      await new Promise((done) => setTimeout(done, SETTLE_MS));
      cpu.get(tool)!.push((treeCpuMs(dev.pid) - before) / calls);
    }
  }
  if (ROUNDS > 0) {
    const baseline = median(cpu.get(TOOLS[0]!)!);
    console.log(
      `\nServer CPU per tools/call (${ERA}; ${CLIENTS} clients x ${CALLS} calls per round, ${ROUNDS} rounds; median, range):\n`,
    );
    for (const tool of TOOLS) {
      const values = cpu.get(tool)!;
      const rates = wall.get(tool)!.map((ms) => (calls * 1000) / ms);
      console.log(
        `${tool.padEnd(16)} ${median(values).toFixed(2).padStart(6)} ms (${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)})  ${(median(values) / baseline).toFixed(2)}x ${TOOLS[0]}   ${median(rates).toFixed(0)} calls/s (${Math.min(...rates).toFixed(0)}-${Math.max(...rates).toFixed(0)})`,
      );
    }
  }

  if (PROFILE) {
    TOOL = PROFILE;
    const clients = await newClients(dev.url);
    const inspector = await devtools(inspectorPort);
    await inspector.send("Debugger.enable");
    await inspector.send("Profiler.enable");
    await inspector.send("Profiler.setSamplingInterval", { interval: 100 });
    await inspector.send("Profiler.start");
    const wallMs = await load(dev.url, clients);
    await new Promise((done) => setTimeout(done, SETTLE_MS));
    const { profile } = (await inspector.send("Profiler.stop")) as { profile: Profile };
    const bundle = [...inspector.scripts].find(([, url]) => url.endsWith("index.js"));
    const source = bundle
      ? ((await inspector.send("Debugger.getScriptSource", { scriptId: bundle[0] })) as { scriptSource: string })
          .scriptSource
      : "";
    moduleAt = bundleModules(source);
    await inspector.send("Debugger.disable");
    inspector.close();
    console.log(
      `\nProfile of ${PROFILE}: wall ${wallMs.toFixed(0)} ms for ${calls} calls (${((calls * 1000) / wallMs).toFixed(0)} calls/s)`,
    );
    summarise(profile);
    if (OUT) {
      writeFileSync(OUT, JSON.stringify(profile));
      writeFileSync(`${OUT}.bundle.js`, source);
    }
  }
} finally {
  await dev.stop();
}
