/**
 * Memory and CPU of a recorded-traffic upload at the size limit, in Node on the Worker's own code, in the order
 * services/exchanges.ts runs it: body bytes (kept, as the route keeps them) -> decode -> read the HAR ->
 * parse the contract (GitHub's 13 MB description, the largest measured) -> validate every exchange. Run it with
 * the heap limit of a Worker isolate; it prints the heap in use at the end and the CPU time.
 *
 *   npx node --max-old-space-size=128 --expose-gc --experimental-transform-types --no-warnings \
 *     --import ./bench/ts-resolve.mjs scripts/exchanges-upload-memory.ts 4800
 *
 * The argument is the number of exchanges (bench/github-exchanges.ts; 4,800 make a 14.5 MB HAR).
 */
import { parseExchanges } from "../src/engine/exchanges/parse";
import { createExchangeValidator } from "../src/engine/exchanges/validate";
import { parseDocumentBytes } from "../src/engine/load/parse-upload";
import { githubExchanges, harOf } from "../bench/github-exchanges";
import { githubText } from "../bench/github-fixture";
const count = Number(process.argv[2]);
const gen = githubExchanges(JSON.parse(githubText()), count);
const har: Uint8Array | undefined = new TextEncoder().encode(harOf(gen));
gen.length = 0;
const contractBytes = new TextEncoder().encode(githubText());
(globalThis as any).gc();
const start = performance.now();
const cpu0 = process.cpuUsage();
const text = new TextDecoder("utf-8", { fatal: true }).decode(har);
const parsed = parseExchanges(text, "application/json");
if (!parsed.ok) throw new Error(JSON.stringify(parsed).slice(0, 200));
const doc = parseDocumentBytes(contractBytes);
if (!doc.ok) throw new Error("contract");
const verdict = createExchangeValidator().validate(doc.document, "k", parsed.exchanges);
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    count,
    harMB: (har.byteLength / 1e6).toFixed(1),
    ms: Math.round(performance.now() - start),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    violations: verdict.totalViolations,
    heapMB: (process.memoryUsage().heapUsed / 1e6).toFixed(0),
  }),
);
