/**
 * `npm run bench:upload-profile`: where a 13 MB snapshot upload's time goes over REST, inside workerd. Starts one
 * `wrangler dev` of this Worker, stores GitHub's description as a project's active contract (as bench/rest-upload.ts
 * does), attaches V8's CPU profiler through wrangler's DevTools inspector, uploads ROUNDS new mutated copies with a
 * CI key, and prints, per upload: the wall time seen by the client, and the isolate's time by step (the innermost
 * step function of ours on each sampled stack: body read, parse, hash, pieces sent, contract read back and decoded,
 * verdict, store record, answer), its garbage collection and its idle time (waiting on the body, the proxy or the
 * store). The Worker and its Durable Objects share one isolate under wrangler dev, so the store's side is in the
 * same profile. A last row times the same 13 MB body refused at once (not UTF-8 from its first byte): what moving
 * the body alone costs, through wrangler dev's proxy, with the auth and the store's first call.
 *
 * Options: --rounds N (5), --top N (25), --out FILE (also write the .cpuprofile for DevTools).
 */
import { writeFileSync } from "node:fs";
import { freePort, startWranglerDev } from "../test/helpers/wrangler-dev";
import { githubText, mutatedCopy } from "./github-fixture";
import { prepareRestUpload } from "./rest-upload";
import { bundleModules, devtools, type Profile } from "./devtools";

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : (process.argv[index + 1] ?? fallback);
}
const ROUNDS = Number(argument("rounds", "5"));
const TOP = Number(argument("top", "25"));
const OUT = argument("out", "");

/** The package or file of ours a bundle line belongs to. */
function moduleIndex(source: string): (line: number) => string {
  const moduleAt = bundleModules(source);
  return (line) => (moduleAt(line) ?? "index.js").replace(/^.*node_modules\/((?:@[^/]+\/)?[^/]+).*$/, "$1");
}

/**
 * The steps of an upload, by the function of ours that runs them (first match from the innermost frame out).
 * Store-side functions come first: they run in the same isolate, called from the Worker's awaits.
 */
const STEPS: Array<[step: string, functionNames: string[]]> = [
  ["store: read pieces (SQLite; stores from before the bucket)", ["readDocumentPieces", "readDocumentPiece"]],
  ["store: record snapshot + verdict", ["recordSnapshot"]],
  ["store: upload context", ["uploadContext"]],
  ["read the body", ["readBodyLimited", "readDocument"]],
  ["parse the snapshot (decode, JSON.parse, checks)", ["parseDocumentBytes"]],
  ["decode the contract's comparison form", ["decodeVerdictForm", "documentFromSource"]],
  ["SHA-256", ["sha256Hex"]],
  ["write to the bucket (Worker side)", ["prepareContent", "putBucketContent"]],
  ["read the contract back (Worker side)", ["readPieces", "readBucketContent"]],
  ["verdict", ["checkConformance"]],
  ["encodeVerdict", ["encodeVerdict"]],
  ["answer: Markdown", ["renderVerdictMarkdown"]],
  ["answer: JSON", ["verdictAnswer", "json"]],
  ["rest of uploadSnapshot", ["uploadSnapshot"]],
  ["rest of the route", ["handle"]],
];

function summarise(profile: Profile, moduleAt: (line: number) => string, uploads: number): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const stepOf = new Map<number, string>();
  const stepFor = (id: number): string => {
    const cached = stepOf.get(id);
    if (cached) return cached;
    const own = byId.get(id)!.callFrame.functionName;
    let step: string | undefined;
    if (own === "(idle)") step = "(idle: waiting)";
    else if (own === "(program)") step = "(program: the runtime's native work outside JS)";
    else if (own === "(garbage collector)") step = "(garbage collector)";
    for (let at: number | undefined = id; !step && at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (!frame.url.endsWith("index.js")) continue;
      step = STEPS.find(([, names]) => names.includes(frame.functionName))?.[0];
    }
    step ??= "(other)";
    stepOf.set(id, step);
    return step;
  };
  const steps = new Map<string, number>();
  const selfBy = new Map<string, number>();
  // A sample is charged at most twice the sampling interval; the rest of the time since the previous sample is a gap
  // the sampler did not see (workerd outside JavaScript), which charged to the next frame inflated it (bench:profile
  // says more).
  const interval = [...profile.timeDeltas].sort((a, b) => a - b)[profile.timeDeltas.length >> 1] ?? 0;
  const unseen = "(gaps the sampler did not see)";
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const us = Math.min(delta, 2 * interval);
    if (delta > us) steps.set(unseen, (steps.get(unseen) ?? 0) + delta - us);
    const step = stepFor(id);
    steps.set(step, (steps.get(step) ?? 0) + us);
    const frame = byId.get(id)!.callFrame;
    if (step.startsWith("(idle")) return;
    const where = frame.url.endsWith("index.js") ? moduleAt(frame.lineNumber) : frame.url || "(native)";
    const label = `${frame.functionName || "(anonymous)"} ${where}:${frame.lineNumber + 1} [${step}]`;
    selfBy.set(label, (selfBy.get(label) ?? 0) + us);
  });
  const total = [...steps.values()].reduce((a, b) => a + b, 0);
  const row = (label: string, us: number) =>
    `${(us / 1000 / uploads).toFixed(1).padStart(8)} ms/upload ${((100 * us) / total).toFixed(1).padStart(5)}%  ${label}`;
  console.log("\nIsolate time by step (per upload):");
  for (const [step, us] of [...steps].sort((a, b) => b[1] - a[1])) console.log(row(step, us));
  console.log("\nHottest functions (self time, per upload):");
  for (const [label, us] of [...selfBy].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(row(label, us));
}

const text = githubText();
const mutated = mutatedCopy(text) as { info: { version: string } };
const snapshotOf = (round: number) => {
  mutated.info.version = `profile-${round}`;
  return new TextEncoder().encode(JSON.stringify(mutated, null, 2));
};
const inspectorPort = await freePort();
const server = await startWranglerDev({
  vars: { ARBITER_DEV_SIGN_IN: "true" },
  readyTimeoutMs: 120_000,
  inspectorPort,
  // The profile is read against the bundle's `// path` comments, which only an unminified build has.
  minify: false,
});
try {
  const rest = await prepareRestUpload(server.url, text);
  await rest.uploadLarge(snapshotOf(0), "warm-up");
  const bodies = Array.from({ length: ROUNDS }, (_, round) => snapshotOf(round + 1));
  const inspector = await devtools(inspectorPort);
  await inspector.send("Debugger.enable");
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval: 200 });
  await inspector.send("Profiler.start");
  const walls: number[] = [];
  for (const [round, body] of bodies.entries()) walls.push((await rest.uploadLarge(body, `profile${round}`)).ms);
  const { profile } = (await inspector.send("Profiler.stop")) as { profile: Profile };
  const bundle = [...inspector.scripts].find(([, url]) => url.endsWith("index.js"));
  const source = bundle
    ? ((await inspector.send("Debugger.getScriptSource", { scriptId: bundle[0] })) as { scriptSource: string })
        .scriptSource
    : "";
  await inspector.send("Debugger.disable");
  inspector.close();

  const refused = new Uint8Array(bodies[0]!);
  refused[0] = 0xff;
  const refusals: number[] = [];
  for (let round = 0; round < ROUNDS; round++) refusals.push(await rest.refusedAtOnce(refused));

  const sorted = (values: number[]) =>
    [...values]
      .sort((a, b) => a - b)
      .map((value) => value.toFixed(0))
      .join(", ");
  console.log(`Client wall time of ${ROUNDS} uploads (ms, sorted): ${sorted(walls)}`);
  console.log(
    `The same 13 MB body refused at once (not UTF-8; body moved, auth, one store call), ms sorted: ${sorted(refusals)}`,
  );
  summarise(profile, moduleIndex(source), ROUNDS);
  if (OUT) writeFileSync(OUT, JSON.stringify(profile));
} finally {
  await server.stop();
}
