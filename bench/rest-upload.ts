/**
 * A snapshot upload as CI really runs it: over REST against `wrangler dev` of the product Worker (workerd, SQLite
 * Durable Objects, HTTP on loopback), with a CI key, GitHub's 13 MB description stored as the active contract, and
 * a mutated copy uploaded as the snapshot. Each round uploads a snapshot whose bytes are new (its `info.version`
 * names the round), so its pieces are really stored, and times the request from the first byte sent to the last
 * byte of the answer read; JSON.parse of the same snapshot text is timed in this process just before, and the row
 * reports the median of the per-round ratios with the middle half. A one-operation snapshot against a
 * one-operation contract gives the small upload's latency (store calls, not compute). In the same rounds the same
 * body goes to the floor Worker (bench/rest-floor/worker.ts) each of its ways: what reading the body and keeping it in
 * the local R2 bucket cost under `wrangler dev` before any of the upload's work.
 */
import { createHash } from "node:crypto";
import { startWranglerDev } from "../test/helpers/wrangler-dev";
import { obtainToken } from "../test/helpers/oauth-http";
import type { Paired } from "./upload-rows";

/** The ways bench/rest-floor/worker.ts takes the same upload's body (see there). */
export const FLOOR_WAYS = ["body", "bucket", "stream"] as const;
export type FloorWay = (typeof FLOOR_WAYS)[number];

export interface RestMeasurements {
  large: Paired;
  /** The same snapshot POSTed to the floor Worker in the same rounds, each way (bench/rest-floor/worker.ts). */
  floor: Record<FloorWay, Paired>;
  /** The verdict's violation count of one large round (the same every round). */
  violations: number;
  small: { ms: number; low: number; high: number };
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

function middle(values: number[]): { median: number; low: number; high: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const quarter = Math.floor(sorted.length / 4);
  return {
    median: sorted[Math.floor(sorted.length / 2)] ?? NaN,
    low: sorted[quarter] ?? NaN,
    high: sorted[sorted.length - 1 - quarter] ?? NaN,
  };
}

/** A one-operation OpenAPI document whose response property has type `type`. */
export const small = (title: string, type: string) =>
  JSON.stringify({
    openapi: "3.1.0",
    info: { title, version: "1" },
    paths: {
      "/ping": {
        get: {
          operationId: "ping",
          responses: {
            "200": {
              description: "ok",
              content: { "application/json": { schema: { type: "object", properties: { ok: { type } } } } },
            },
          },
        },
      },
    },
  });

export interface RestUpload {
  /** POSTs `body` as a new snapshot of the large project; the client's wall time and the verdict's violation count. */
  uploadLarge(body: Uint8Array<ArrayBuffer>, commit: string): Promise<{ ms: number; violations: number }>;
  /** POSTs `body` (which must be refused as not UTF-8) and times the 422: the body moved, nothing computed. */
  refusedAtOnce(body: Uint8Array<ArrayBuffer>): Promise<number>;
  /** POSTs a small snapshot to the small project; the client's wall time. */
  uploadSmall(text: string, commit: string): Promise<number>;
}

/** A CI key, GitHub's description as the active contract of "github" and a one-operation contract of "tiny". */
export async function prepareRestUpload(url: string, contractText: string): Promise<RestUpload> {
  const admin = await obtainToken(url, {
    user: "ana",
    scope: "keys.admin contracts.read contracts.write snapshots.write",
    resource: `${url}/api`,
  });
  const api = (token: string, method: string, path: string, body?: BodyInit) =>
    fetch(`${url}/api/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(120_000),
    });
  const created = await api(
    admin,
    "POST",
    "/keys",
    JSON.stringify({ name: "bench CI", projects: ["github", "tiny"], scopes: ["contracts.write", "snapshots.write"] }),
  );
  if (created.status !== 201) throw new Error(`CI key: ${created.status} ${await created.text()}`);
  const ci = ((await created.json()) as { secret: string }).secret;
  for (const [project, document] of [
    ["github", contractText],
    ["tiny", small("Tiny", "boolean")],
  ] as const) {
    const stored = await api(ci, "POST", `/projects/${project}/contracts`, document);
    if (stored.status !== 201)
      throw new Error(`contract of ${project}: ${stored.status} ${(await stored.text()).slice(0, 300)}`);
    await stored.arrayBuffer();
  }
  return {
    async uploadLarge(body, commit) {
      const start = performance.now();
      const answer = await api(ci, "POST", `/projects/github/snapshots?commit=${commit}`, body);
      const answered = await answer.text();
      const ms = performance.now() - start;
      if (answer.status !== 201) throw new Error(`snapshot upload: ${answer.status} ${answered.slice(0, 300)}`);
      const parsed = JSON.parse(answered) as { contentReused: boolean; verdict: { totalViolations: number } };
      if (parsed.contentReused)
        throw new Error("the snapshot's bytes were already stored: each round must upload new bytes");
      return { ms, violations: parsed.verdict.totalViolations };
    },
    async refusedAtOnce(body) {
      const start = performance.now();
      const answer = await api(ci, "POST", "/projects/github/snapshots?commit=refused", body);
      await answer.text();
      if (answer.status !== 422) throw new Error(`a body that is not UTF-8 answered ${answer.status}`);
      return performance.now() - start;
    },
    async uploadSmall(text, commit) {
      const start = performance.now();
      const answer = await api(ci, "POST", `/projects/tiny/snapshots?commit=${commit}`, text);
      await answer.text();
      if (answer.status !== 201) throw new Error(`small snapshot upload: ${answer.status}`);
      return performance.now() - start;
    },
  };
}

/**
 * POSTs `body` to the floor Worker, taken `way`; the client's wall time, request sent to answer read. The answer must
 * show the work was done: the length read or stored, or the SHA-256 the bucket checked (`sha256`, hex).
 */
async function floorUpload(
  url: string,
  way: FloorWay,
  body: Uint8Array<ArrayBuffer>,
  key: string,
  sha256: string,
): Promise<number> {
  const start = performance.now();
  const answer = await fetch(`${url}/floor?way=${way}&key=${key}`, {
    method: "POST",
    body,
    signal: AbortSignal.timeout(120_000),
  });
  const answered = await answer.text();
  const ms = performance.now() - start;
  if (answer.status !== 200) throw new Error(`floor upload (${way}): ${answer.status} ${answered.slice(0, 300)}`);
  const expected = way === "bucket" ? sha256 : String(body.byteLength);
  if (answered !== expected)
    throw new Error(`floor upload (${way}) answered ${answered.slice(0, 80)}, not ${expected}`);
  return ms;
}

/** JSON.parse of `text` in this process, timed after a collection. */
function timedParse(text: string): number {
  gc();
  const start = performance.now();
  JSON.parse(text);
  return performance.now() - start;
}

export async function measureRestUpload(
  contractText: string,
  snapshotOf: (round: number) => string,
  rounds: number,
): Promise<RestMeasurements> {
  const server = await startWranglerDev({
    vars: { ARBITER_DEV_SIGN_IN: "true" },
    readyTimeoutMs: 120_000,
    ...(process.env.BENCH_REST_LOG ? { logFile: process.env.BENCH_REST_LOG } : {}),
  });
  let floorServer: Awaited<ReturnType<typeof startWranglerDev>> | undefined;
  try {
    floorServer = await startWranglerDev({ config: "bench/rest-floor/wrangler.toml" });
    const rest = await prepareRestUpload(server.url, contractText);
    const runs: number[] = [];
    const ratios: number[] = [];
    const floorRuns = Object.fromEntries(
      FLOOR_WAYS.map((way) => [way, { runs: [] as number[], ratios: [] as number[] }]),
    );
    let violations = 0;
    // One unmeasured round first: workerd compiles the Worker's code paths on their first use.
    for (let round = -1; round < rounds; round++) {
      const text = snapshotOf(round + 1);
      const body = new TextEncoder().encode(text);
      const parse = timedParse(text);
      gc();
      const uploaded = await rest.uploadLarge(body, `bench${round + 1}`);
      violations = uploaded.violations;
      // The floor's ways in the same round, each against a JSON.parse of the same text just before it.
      const sha256 = createHash("sha256").update(body).digest("hex");
      for (const way of FLOOR_WAYS) {
        const wayParse = timedParse(text);
        gc();
        const ms = await floorUpload(floorServer.url, way, body, `${way}-${round + 1}`, sha256);
        if (round < 0) continue;
        floorRuns[way]!.runs.push(ms);
        floorRuns[way]!.ratios.push(ms / wayParse);
      }
      if (round < 0) continue;
      runs.push(uploaded.ms);
      ratios.push(uploaded.ms / parse);
    }

    const smallRuns: number[] = [];
    for (let round = -1; round < 3 * rounds; round++) {
      const ms = await rest.uploadSmall(small(`Tiny ${round + 1}`, "string"), `tiny${round + 1}`);
      if (round >= 0) smallRuns.push(ms);
    }
    const paired = (ms: number[], ratioList: number[]): Paired => {
      const ratio = middle(ratioList);
      return { ms: middle(ms).median, ratio: ratio.median, low: ratio.low, high: ratio.high };
    };
    const smallStats = middle(smallRuns);
    return {
      large: paired(runs, ratios),
      floor: Object.fromEntries(
        FLOOR_WAYS.map((way) => [way, paired(floorRuns[way]!.runs, floorRuns[way]!.ratios)]),
      ) as Record<FloorWay, Paired>,
      violations,
      small: { ms: smallStats.median, low: smallStats.low, high: smallStats.high },
    };
  } finally {
    await floorServer?.stop();
    await server.stop();
  }
}
