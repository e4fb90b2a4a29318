/**
 * The worst cases of issues 22 and 37 through the engine alone (no Worker): recorded-traffic validation (as uploads
 * run it, yielding between slices: the longest stretch without a yield is what other requests of the isolate wait
 * for) and validate_response_payload, each timed as the median of a few runs. Rerun: npm run bench:hostile
 * (`npm run bench:hostile -- 4` runs case 4 alone).
 * Before the fix each of these held the CPU for seconds (or forever); after it each is bounded.
 */
import { performance } from "node:perf_hooks";
import { createExchangeValidator } from "../src/engine/exchanges/validate";
import { parseExchanges } from "../src/engine/exchanges/parse";
import { createPayloadValidator } from "../src/engine/payload/payload";
import type { OpenApiDocument } from "../src/engine/types";
import { WorkBudgetExhausted } from "../src/engine/payload/work-budget";
import { HOSTILE_CASES, ndjsonOf } from "./hostile-cases";

const RUNS = Number(process.env.RUNS ?? 3);
const only = process.argv[2];

function median(values: number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: sorted[Math.floor(sorted.length / 2)] ?? 0,
    min: sorted[0] ?? 0,
    max: sorted[sorted.length - 1] ?? 0,
  };
}

for (const [position, build] of HOSTILE_CASES.entries()) {
  if (only !== undefined && String(position) !== only) continue;
  const hostile = build();
  const document = hostile.contract as unknown as OpenApiDocument;
  const text = ndjsonOf(hostile.exchanges);
  const parsed = parseExchanges(text, "application/x-ndjson");
  if (!parsed.ok)
    throw new Error(`case ${hostile.name}: the exchanges do not parse: ${JSON.stringify(parsed).slice(0, 300)}`);
  const traffic: number[] = [];
  const slices: number[] = [];
  const payload: number[] = [];
  let trafficOutcome = "";
  let payloadOutcome = "";
  for (let run = 0; run < RUNS; run++) {
    let start = performance.now();
    // The longest stretch without a yield is what other requests of the isolate wait for.
    let sliceStart = start;
    let longestSlice = 0;
    const pause = async () => {
      longestSlice = Math.max(longestSlice, performance.now() - sliceStart);
      await new Promise((done) => setImmediate(done));
      sliceStart = performance.now();
    };
    try {
      const verdict = await createExchangeValidator().validateYielding(
        document,
        `bench-${run}`,
        parsed.exchanges,
        pause,
      );
      trafficOutcome = `${verdict.approved ? "approved" : "rejected"}, ${verdict.summary.map((entry) => `${entry.rule} ${entry.count}`).join(", ")}`;
    } catch (error) {
      if (!(error instanceof WorkBudgetExhausted)) throw error;
      trafficOutcome = `cannot verify: ${error.scope} budget of ${error.limit} units exhausted`;
    }
    traffic.push(performance.now() - start);
    slices.push(Math.max(longestSlice, performance.now() - sliceStart));
    start = performance.now();
    const result = createPayloadValidator().validate(document, `bench-${run}`, {
      method: hostile.payload.method,
      path: hostile.payload.path,
      status: hostile.payload.status,
      payload: hostile.payload.payload,
    });
    payload.push(performance.now() - start);
    payloadOutcome = `${result.approved ? "approved" : "rejected"} ${[...result.violations.map((violation) => violation.rule), ...result.errors.slice(0, 1).map((error) => error.keyword)].join(",")}`;
  }
  const t = median(traffic);
  const slice = median(slices);
  const p = median(payload);
  console.log(
    `${hostile.name}: upload ${(text.length / 1024 / 1024).toFixed(1)} MiB, ${parsed.exchanges.length} exchanges`,
  );
  console.log(
    `  traffic  median ${t.median.toFixed(0)} ms (min ${t.min.toFixed(0)}, max ${t.max.toFixed(0)}); longest stretch without yielding: median ${slice.median.toFixed(0)} ms (max ${slice.max.toFixed(0)})  ${trafficOutcome}`,
  );
  console.log(
    `  payload  median ${p.median.toFixed(0)} ms (min ${p.min.toFixed(0)}, max ${p.max.toFixed(0)})  ${payloadOutcome}`,
  );
}
