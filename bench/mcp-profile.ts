/**
 * `npm run bench:profile`: where a tools/call's CPU goes inside workerd. Starts one `wrangler dev` of this Worker
 * (bench tools on, as bench:mcp does), attaches the V8 CPU profiler through wrangler's DevTools inspector, runs
 * CLIENTS sessions of CALLS sequential calls of one tool, and prints the profile's self time by source (our files
 * under src/, each package under node_modules, the runtime) and the hottest functions. The Worker and its Durable
 * Objects share one isolate under wrangler dev, so one profile holds the front, the session object and the
 * coordinators.
 *
 * Options: --tool bench_bare|bench_governed|whoami (whoami), --era 2025-11-25|2026-07-28 (2025-11-25),
 * --clients N (20), --calls N (20, at most 29), --top N (40), --out FILE (also write the .cpuprofile for DevTools).
 */
import { writeFileSync } from "node:fs";
import { freePort, startWranglerDev } from "../test/helpers/wrangler-dev";
import { obtainToken } from "../test/helpers/oauth-http";

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : (process.argv[index + 1] ?? fallback);
}
const TOOL = argument("tool", "whoami");
const ERA = argument("era", "2025-11-25");
const CLIENTS = Number(argument("clients", "20"));
const CALLS = Number(argument("calls", "20"));
const TOP = Number(argument("top", "40"));
const OUT = argument("out", "");
if (!["2025-11-25", "2026-07-28"].includes(ERA)) throw new Error(`--era needs 2025-11-25 or 2026-07-28 (got ${ERA})`);
if (!(CALLS >= 1 && CALLS <= 29)) throw new Error("--calls must be 1 to 29: the shipped quota is 30 calls per 60 s per client");

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; scriptId: string };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** A DevTools protocol session over the inspector's WebSocket. */
async function devtools(port: number): Promise<{ send(method: string, params?: object): Promise<any>; scripts: Map<string, string>; close(): void }> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as Array<{ webSocketDebuggerUrl: string; title?: string }>;
  const target = targets[0];
  if (!target) throw new Error("the inspector lists no target");
  // wrangler's inspector proxy wants an Origin it knows (DevTools'); Node's WebSocket takes headers as an option.
  const socket = new WebSocket(target.webSocketDebuggerUrl, { headers: { Origin: "http://localhost" } } as never);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let next = 1;
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const scripts = new Map<string, string>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; method?: string; params?: { scriptId: string; url: string }; result?: unknown; error?: { message: string } };
    if (message.method === "Debugger.scriptParsed" && message.params) scripts.set(message.params.scriptId, message.params.url);
    if (message.id === undefined) return;
    const entry = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error) entry?.reject(new Error(message.error.message));
    else entry?.resolve(message.result);
  });
  return {
    send(method, params = {}) {
      const id = next++;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
    },
    scripts,
    close: () => socket.close(),
  };
}

const HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

async function callOnce(base: string, headers: Record<string, string>, id: number): Promise<void> {
  const params: Record<string, unknown> = { name: TOOL, arguments: {} };
  if (ERA === "2026-07-28") {
    params._meta = { "io.modelcontextprotocol/protocolVersion": ERA, "io.modelcontextprotocol/clientInfo": { name: "bench-profile", version: "1.0.0" }, "io.modelcontextprotocol/clientCapabilities": {} };
  }
  const response = await fetch(`${base}/mcp`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }) });
  const text = await response.text();
  if (response.status !== 200 || text.includes('"isError":true') || text.includes('"error":')) throw new Error(`${TOOL}: HTTP ${response.status}: ${text.slice(0, 300)}`);
}

async function clientHeaders(base: string, token: string): Promise<Record<string, string>> {
  const headers = { ...HEADERS, Authorization: `Bearer ${token}` };
  if (ERA === "2026-07-28") return { ...headers, "MCP-Protocol-Version": ERA, "Mcp-Method": "tools/call", "Mcp-Name": TOOL };
  const init = await fetch(`${base}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: ERA, capabilities: {}, clientInfo: { name: "bench-profile", version: "1.0.0" } } }),
  });
  await init.text();
  const sessionId = init.headers.get("mcp-session-id");
  if (!sessionId) throw new Error(`initialize failed: HTTP ${init.status}`);
  const sessionHeaders = { ...headers, "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": ERA };
  await (await fetch(`${base}/mcp`, { method: "POST", headers: sessionHeaders, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) })).text();
  return sessionHeaders;
}

/**
 * The bundle's modules by line: esbuild (which wrangler dev runs unminified) starts each module with a
 * `// path` comment, so a frame's line names the file it came from.
 */
let moduleStarts: Array<{ line: number; path: string }> = [];
function indexModules(source: string): void {
  moduleStarts = [];
  source.split("\n").forEach((text, line) => {
    const match = /^\/\/ ((?:src|node_modules|bench|policies)\/\S+)$/.exec(text);
    if (match) moduleStarts.push({ line, path: match[1]! });
  });
}
function moduleAt(line: number): string | undefined {
  let low = 0;
  let high = moduleStarts.length - 1;
  let found: string | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (moduleStarts[middle]!.line <= line) {
      found = moduleStarts[middle]!.path;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

function frameSource(frame: ProfileNode["callFrame"]): string {
  if (frame.url.endsWith("index.js") && moduleStarts.length > 0) return sourceOf(moduleAt(frame.lineNumber) ?? frame.url);
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
  const self = new Map<number, number>();
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
  const idleUs = [...self].filter(([id]) => ["(idle)", "(program)"].includes(byId.get(id)?.callFrame.functionName ?? "")).reduce((a, [, us]) => a + us, 0);
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
  const row = (label: string, us: number) => `${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / busyUs).toFixed(1).padStart(5)}% ${(us / calls).toFixed(0).padStart(6)} us/call  ${label}`;
  console.log(`\n${TOOL} (${ERA}): ${calls} calls; isolate busy ${(busyUs / 1000).toFixed(0)} ms of ${(totalUs / 1000).toFixed(0)} ms sampled, ${(busyUs / calls).toFixed(0)} us per call\n`);
  console.log("Self time by source:");
  for (const [source, us] of [...bySource].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(row(source, us));
  console.log("\nOur functions, inclusive time:");
  for (const [label, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(row(label, us));
  console.log("\nRuntime and native time by caller:");
  for (const [label, us] of [...nativeByCaller].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(row(label, us));
  console.log("\nHottest functions (self time):");
  for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(row(name, us));
}

const inspectorPort = await freePort();
const dev = await startWranglerDev({ vars: { ARBITER_DEV_SIGN_IN: "true", ARBITER_BENCH_BARE: "true" }, inspectorPort });
try {
  const tokens: string[] = [];
  for (let index = 0; index < CLIENTS; index++) tokens.push(await obtainToken(dev.url, { user: "ana", scope: "orders.read", resource: `${dev.url}/mcp` }));
  const clients = await Promise.all(tokens.map((token) => clientHeaders(dev.url, token)));
  await Promise.all(clients.map((headers) => callOnce(dev.url, headers, 1)));
  const inspector = await devtools(inspectorPort);
  await inspector.send("Debugger.enable");
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval: 100 });
  await inspector.send("Profiler.start");
  const started = performance.now();
  await Promise.all(clients.map(async (headers) => {
    for (let call = 0; call < CALLS; call++) await callOnce(dev.url, headers, call + 2);
  }));
  const wallMs = performance.now() - started;
  // Work the calls left behind (alarms draining audit outboxes) belongs to them too.
  await new Promise((done) => setTimeout(done, 1500));
  const { profile } = (await inspector.send("Profiler.stop")) as { profile: Profile };
  const bundle = [...inspector.scripts].find(([, url]) => url.endsWith("index.js"));
  const source = bundle ? ((await inspector.send("Debugger.getScriptSource", { scriptId: bundle[0] })) as { scriptSource: string }).scriptSource : "";
  indexModules(source);
  if (OUT) writeFileSync(`${OUT}.bundle.js`, source);
  await inspector.send("Debugger.disable");
  inspector.close();
  console.log(`wall ${wallMs.toFixed(0)} ms for ${CLIENTS * CALLS} calls (${((CLIENTS * CALLS * 1000) / wallMs).toFixed(0)} calls/s)`);
  summarise(profile);
  if (OUT) writeFileSync(OUT, JSON.stringify(profile));
} finally {
  await dev.stop();
}
