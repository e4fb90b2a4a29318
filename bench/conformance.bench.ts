/**
 * `npm run bench`: the conformance engine on GitHub's REST API description (13 MB, 1223 operations), side by side
 * with baselines measured in the same run: JSON.parse of the same text, and ajv / a bare @cfworker/json-schema
 * Validator for payload validation. Prints a table and writes BENCHMARKS.md. Timings are medians; the targets
 * are ratios, because absolute numbers depend on the machine (and on what else runs on it).
 * `BENCH_ONLY=exchanges npm run bench` runs only the recorded-traffic rows and prints them (BENCHMARKS.md is
 * left as it is).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Validator } from "@cfworker/json-schema";
import Ajv2020 from "ajv/dist/2020.js";
import { loadConformanceConfig } from "../src/contracts/config";
import { parseOpenApiDocument } from "../src/contracts/document";
import { checkConformance } from "../src/contracts/engine";
import { indexDocument } from "../src/contracts/normalize-document";
import { parseExchanges } from "../src/contracts/exchanges/parse";
import { createExchangeValidator } from "../src/contracts/exchanges/validate";
import { createPayloadValidator } from "../src/contracts/payload";
import { convertToJsonSchema } from "../src/contracts/payload-schema";
import { parseDocumentBytes } from "../src/contracts/store/parse-upload";
import { CHUNK_BYTES } from "../src/contracts/store/schema";
import type { OpenApiDocument } from "../src/contracts/types";
import { githubExchanges, harOf } from "./github-exchanges";
import { githubText, mutatedCopy } from "./github-fixture";
import { chainText, diamondText, fanOutText } from "./reference-fixtures";

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** Median milliseconds of `run`, each round prepared by `prepare` outside the timed part, after a full GC. */
function time<T>(rounds: number, prepare: () => T, run: (input: T) => unknown): number {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const input = prepare();
    gc();
    const start = performance.now();
    run(input);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/** `time` for an asynchronous run (the upload path hashes with WebCrypto). */
async function timeAsync<T>(rounds: number, prepare: () => T, run: (input: T) => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const input = prepare();
    gc();
    const start = performance.now();
    await run(input);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

interface Paired {
  /** Median milliseconds of the measured run. */
  ms: number;
  /** Median over rounds of run / JSON.parse, each JSON.parse timed in the same round, just before the run. */
  ratio: number;
  /** The middle half of those per-round ratios. */
  low: number;
  high: number;
}

/**
 * Like `time`, but each round also times JSON.parse of `baselineText` right before the run, and the ratio is taken
 * per round. A shared machine's load drifts within seconds; pairing keeps that drift out of the ratio, which a
 * ratio of two medians measured minutes apart does not.
 */
function pairedWithParse<T>(rounds: number, baselineText: string, prepare: () => T, run: (input: T) => unknown): Paired {
  const runs: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    gc();
    const parseStart = performance.now();
    JSON.parse(baselineText);
    const parse = performance.now() - parseStart;
    const input = prepare();
    gc();
    const start = performance.now();
    run(input);
    const elapsed = performance.now() - start;
    runs.push(elapsed);
    ratios.push(elapsed / parse);
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  const quarter = Math.floor(rounds / 4);
  return { ms: median(runs), ratio: median(ratios), low: sorted[quarter] ?? NaN, high: sorted[rounds - 1 - quarter] ?? NaN };
}

/**
 * The Worker's upload path up to storage, with the Worker's own code where it runs in Node: UTF-8 decode, parse
 * and validate (store/parse-upload.ts parseDocumentBytes), the SHA-256 content address (WebCrypto, as
 * store/hash.ts computes it; that file is typed for workerd) and the 1 MiB pieces storeContent sends to the
 * Durable Object (copied here as there; the RPCs and SQLite writes themselves need workerd and are not timed),
 * then the index the verdict uses.
 */
async function uploadAndIndex(bytes: Uint8Array<ArrayBuffer>): Promise<number> {
  const parsed = parseDocumentBytes(bytes);
  if (!parsed.ok) throw new Error(`GitHub's description was refused: ${parsed.problems[0]?.message}`);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let pieces = 0;
  for (let offset = 0; offset < bytes.byteLength; offset += CHUNK_BYTES) pieces += bytes.slice(offset, offset + CHUNK_BYTES).byteLength > 0 ? 1 : 0;
  const index = indexDocument(parsed.document);
  return hash.length + pieces + index.operations.length;
}

function perOperation(iterations: number, run: () => unknown): number {
  for (let index = 0; index < Math.min(200, iterations); index++) run();
  gc();
  const start = performance.now();
  for (let index = 0; index < iterations; index++) run();
  return (performance.now() - start) / iterations;
}

/** A document as the upload path produces it: parsed and validated (store/parse-upload.ts calls the same function). */
function validated(documentText: string): OpenApiDocument {
  const parsed = parseOpenApiDocument(documentText);
  if (!parsed.ok) throw new Error(`a benchmark document was refused: ${parsed.problems[0]?.message}`);
  return parsed.document;
}

const config = loadConformanceConfig({ "conformance.json": { rules: {} }, "constitution.json": { rules: {} } });

const kilobytes = (text: string) => `${Math.round(new TextEncoder().encode(text).byteLength / 1024)} KB`;

/**
 * Documents built to make reference resolution explode (reference-fixtures.ts), each timed beside JSON.parse of the
 * same text: the upload's parse and validation (parseDocumentBytes), and the verdict for the diamond.
 */
function referenceRows(paired: (measured: Paired) => string): [string, string, string][] {
  const rounds = 15;
  const ms = (value: number) => value.toFixed(value < 1 ? 3 : 1);
  const chain = chainText(5000);
  const chainBytes = new TextEncoder().encode(chain);
  const chainRefused = parseDocumentBytes(chainBytes);
  if (chainRefused.ok) throw new Error("the 5,000-link chain was accepted");
  const chainParse = pairedWithParse(rounds, chain, () => undefined, () => parseDocumentBytes(chainBytes));
  const fanOut = fanOutText(400, 200);
  const fanOutBytes = new TextEncoder().encode(fanOut);
  if (!parseDocumentBytes(fanOutBytes).ok) throw new Error("the fan-out was refused");
  const fanOutParse = pairedWithParse(rounds, fanOut, () => undefined, () => parseDocumentBytes(fanOutBytes));
  const diamondContract = diamondText(40, "string");
  const diamondSnapshot = diamondText(40, "integer");
  const diamondViolations = checkConformance(validated(diamondContract), validated(diamondSnapshot), config).totalViolations;
  const diamond = pairedWithParse(rounds, diamondSnapshot, () => [validated(diamondContract), validated(diamondSnapshot)] as const, ([contract, snapshot]) => checkConformance(contract, snapshot, config));
  return [
    [`parse + validate a 5,000-link $ref chain (${kilobytes(chain)}; refused at the 32-link limit; 9.4 s before linear resolution)`, `${ms(chainParse.ms)} ms`, paired(chainParse)],
    [`parse + validate a fan-out: 400 schemas x 200 $refs to the same 200 schemas (${kilobytes(fanOut)}, 80,000 $refs; accepted)`, `${ms(fanOutParse.ms)} ms`, paired(fanOutParse)],
    [`verdict on a 40-level diamond, 2^40 paths to one changed type (${kilobytes(diamondSnapshot)}; ${diamondViolations} violations listed; out of memory before)`, `${ms(diamond.ms)} ms`, paired(diamond)],
  ];
}

const pairedNote = (measured: Paired, target = "") => `${measured.ratio.toFixed(2)} x JSON.parse (per-round; middle half ${measured.low.toFixed(2)}-${measured.high.toFixed(2)})${target}`;

function memoryChild(): void {
  const text = githubText();
  const contract = JSON.parse(text) as OpenApiDocument;
  const snapshot = mutatedCopy(text) as OpenApiDocument;
  gc();
  const before = process.memoryUsage();
  const rssBefore = process.resourceUsage().maxRSS;
  const verdict = checkConformance(contract, snapshot, config);
  const after = process.memoryUsage();
  const rssAfter = process.resourceUsage().maxRSS;
  gc();
  const retained = process.memoryUsage().heapUsed - before.heapUsed;
  process.stdout.write(JSON.stringify({
    heapBeforeMB: before.heapUsed / 1e6,
    heapGrowthDuringCheckMB: (after.heapUsed - before.heapUsed) / 1e6,
    retainedAfterGcMB: retained / 1e6,
    maxRssBeforeMB: rssBefore / 1024,
    maxRssAfterMB: rssAfter / 1024,
    violations: verdict.totalViolations,
  }));
}

const EXCHANGE_COUNT = 1000;

/**
 * Recorded traffic: 1,000 exchanges of GitHub's API built from its examples (bench/github-exchanges.ts), read from
 * a HAR file and validated request and response, beside the per-payload figure: the same 1,000 response payloads
 * through validate_response_payload's validator (already parsed, as MCP arguments arrive).
 */
function exchangeRows(text: string): [string, string, string][] {
  const document = JSON.parse(text) as OpenApiDocument;
  const exchanges = githubExchanges(document, EXCHANGE_COUNT);
  const operations = new Set(exchanges.map((exchange) => `${exchange.method} ${exchange.url}`)).size;
  const harText = harOf(exchanges);
  const parsed = parseExchanges(harText, "application/json");
  if (!parsed.ok) throw new Error(`the benchmark HAR was refused: ${JSON.stringify(parsed).slice(0, 300)}`);
  const rounds = 7;
  const read = time(rounds, () => undefined, () => parseExchanges(harText, "application/json"));
  const cold = time(5, () => createExchangeValidator(), (validator) => validator.validate(document, "bench", parsed.exchanges));
  const warmValidator = createExchangeValidator();
  const verdict = warmValidator.validate(document, "bench", parsed.exchanges);
  const warm = time(rounds, () => undefined, () => warmValidator.validate(document, "bench", parsed.exchanges));
  const payloads = exchanges.map((exchange) => ({ method: exchange.method, path: new URL(exchange.url).pathname, status: exchange.status, payload: exchange.responseBody }));
  const payloadValidator = createPayloadValidator();
  for (const input of payloads) payloadValidator.validate(document, "bench", input);
  const allPayloads = time(rounds, () => undefined, () => {
    for (const input of payloads) payloadValidator.validate(document, "bench", input);
  });
  // The per-payload figure of the payload rows above: one operation, its validator cached.
  const operation = (document as Record<string, any>).paths["/repos/{owner}/{repo}"].get;
  const exampleRef = operation.responses["200"].content["application/json"].examples["default-response"].$ref as string;
  const single = { method: "GET", path: "/repos/octocat/hello-world", status: 200, payload: (document as Record<string, any>).components.examples[exampleRef.split("/").pop() as string].value };
  const singleValidator = createPayloadValidator();
  const perPayload = perOperation(2000, () => singleValidator.validate(document, "bench", single));
  const rate = (ms: number, count = EXCHANGE_COUNT) => `${Math.round((count * 1000) / ms).toLocaleString("en-US")}/s`;
  const ms = (value: number) => value.toFixed(value < 1 ? 3 : 1);
  return [
    [`${EXCHANGE_COUNT} recorded exchanges of GitHub (${operations} operations, HAR ${(harText.length / 1e6).toFixed(1)} MB): read the HAR`, `${ms(read)} ms`, `${rate(read)} exchanges`],
    [`${EXCHANGE_COUNT} exchanges validated, request + response, warm (${verdict.totalViolations} violations: GitHub's examples vs its schemas)`, `${ms(warm)} ms`, `${rate(warm)} exchanges; ${(warm / EXCHANGE_COUNT / perPayload).toFixed(2)} x the per-payload time`],
    [`${EXCHANGE_COUNT} exchanges validated, cold (every validator built inside the timed part)`, `${ms(cold)} ms`, `${rate(cold)} exchanges`],
    ["per-payload figure: one payload through validate_response_payload's validator, warm (GET /repos/{owner}/{repo})", `${ms(perPayload)} ms`, `${rate(perPayload, 1)} payloads; 1.00`],
    [`the same ${EXCHANGE_COUNT} response payloads through that validator, second pass (${operations} operations exceed its 500-validator cache: most are rebuilt)`, `${ms(allPayloads)} ms`, `${rate(allPayloads)} payloads`],
  ];
}

async function exchangesOnly(): Promise<void> {
  const header = `Run ${new Date().toISOString()} on ${execFileSync("nproc", { encoding: "utf8" }).trim()} CPU(s), ${cpus()[0]?.model ?? "unknown"}, Node ${process.version}. Load average at start: ${loadavg().map((value) => value.toFixed(1)).join(" ")}.`;
  const rows = exchangeRows(githubText());
  console.log(`${header}\n\n| Measurement | Median | Rate |\n| --- | ---: | --- |\n${rows.map(([name, value, note]) => `| ${name} | ${value} | ${note} |`).join("\n")}`);
}

async function main(): Promise<void> {
  const text = githubText();
  const bytes = new TextEncoder().encode(text);
  const rounds = 7;

  const jsonParse = time(rounds, () => undefined, () => JSON.parse(text));
  const upload = await timeAsync(rounds, () => undefined, () => uploadAndIndex(bytes));
  const parseAndCheck = time(rounds, () => undefined, () => parseOpenApiDocument(text));
  const index = time(rounds, () => JSON.parse(text) as OpenApiDocument, (document) => indexDocument(document));
  // As uploadSnapshot runs it: the snapshot is parsed and validated first, then the active contract is loaded and
  // parsed and validated; validation resolves every $ref once and the index reuses those resolutions.
  const mutatedText = JSON.stringify(mutatedCopy(text), null, 2);
  const verdictRounds = 15;
  const verdictCold = pairedWithParse(verdictRounds, text, () => { const snapshot = validated(mutatedText); return [validated(text), snapshot] as const; }, ([contract, snapshot]) => checkConformance(contract, snapshot, config));
  const verdictFromBareParse = pairedWithParse(verdictRounds, text, () => [JSON.parse(text) as OpenApiDocument, mutatedCopy(text) as OpenApiDocument] as const, ([contract, snapshot]) => checkConformance(contract, snapshot, config));
  const warmContract = JSON.parse(text) as OpenApiDocument;
  const warmSnapshot = mutatedCopy(text) as OpenApiDocument;
  const warmVerdict = checkConformance(warmContract, warmSnapshot, config);
  const verdictWarm = pairedWithParse(verdictRounds, text, () => undefined, () => checkConformance(warmContract, warmSnapshot, config));

  const self = fileURLToPath(import.meta.url);
  const child = spawnSync(process.execPath, ["--max-old-space-size=128", "--expose-gc", "--experimental-transform-types", "--no-warnings", "--import", new URL("./ts-resolve.mjs", import.meta.url).pathname, self, "--memory-child"], { encoding: "utf8" });
  const memory = child.status === 0 ? (JSON.parse(child.stdout) as Record<string, number>) : undefined;

  // Payload validation: one operation with a large schema and GitHub's own example for it.
  const document = JSON.parse(text) as Record<string, any>;
  const operation = document.paths["/repos/{owner}/{repo}"].get;
  const schema = operation.responses["200"].content["application/json"].schema;
  const exampleRef = operation.responses["200"].content["application/json"].examples["default-response"].$ref as string;
  const payload = document.components.examples[exampleRef.split("/").pop() as string].value;
  const input = { method: "GET", path: "/repos/octocat/hello-world", status: 200, payload };
  const converted = convertToJsonSchema(document, schema, "3.0", "response").schema;
  const convertedText = JSON.stringify(converted);

  const oursCold = time(25, () => createPayloadValidator(), (validator) => validator.validate(document, "bench", input));
  const ajvCold = time(25, () => JSON.parse(convertedText), (copy) => new Ajv2020({ strict: false, validateFormats: false, allErrors: true }).compile(copy)(payload));
  const bareCold = time(25, () => JSON.parse(convertedText), (copy) => new Validator(copy, "2020-12", false).validate(payload));
  const warmValidator = createPayloadValidator();
  const firstResult = warmValidator.validate(document, "bench", input);
  const oursWarm = perOperation(2000, () => warmValidator.validate(document, "bench", input));
  const bare = new Validator(JSON.parse(convertedText), "2020-12", false);
  const bareWarm = perOperation(2000, () => bare.validate(payload));
  const ajvCompiled = new Ajv2020({ strict: false, validateFormats: false, allErrors: true }).compile(JSON.parse(convertedText));
  const ajvWarm = perOperation(2000, () => ajvCompiled(payload));

  const cpu = cpus()[0]?.model ?? "unknown";
  const nproc = execFileSync("nproc", { encoding: "utf8" }).trim();
  const date = new Date().toISOString();
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  const ms = (value: number) => value.toFixed(value < 1 ? 3 : 1);
  const verdictRatio = verdictCold.ratio;
  const paired = pairedNote;

  const rows: [string, string, string][] = [
    ["JSON.parse of the document (baseline)", `${ms(jsonParse)} ms`, "1.00"],
    ["upload and index (Worker upload path in Node: decode, parse + validate, SHA-256, 1 MiB pieces, index)", `${ms(upload)} ms`, `${ratio(upload, jsonParse)} x JSON.parse`],
    ["parseOpenApiDocument (JSON.parse + structural checks, $ref resolution)", `${ms(parseAndCheck)} ms`, `${ratio(parseAndCheck, jsonParse)} x JSON.parse`],
    ["index one parsed document (operations, keys, parameters)", `${ms(index)} ms`, `${ratio(index, jsonParse)} x JSON.parse`],
    [`verdict vs mutated copy, cold, as a snapshot upload runs it (${warmVerdict.totalViolations} violations)`, `${ms(verdictCold.ms)} ms`, paired(verdictCold, " (target <= 0.50)")],
    ["verdict vs mutated copy, cold from bare JSON.parse (every $ref resolved inside the timed part)", `${ms(verdictFromBareParse.ms)} ms`, paired(verdictFromBareParse)],
    ["verdict vs mutated copy, warm (indexes cached)", `${ms(verdictWarm.ms)} ms`, paired(verdictWarm)],
    ["payload cold: ours (convert + build + validate)", `${ms(oursCold)} ms`, `${ratio(oursCold, ajvCold)} x ajv cold (target < 1)`],
    ["payload cold: ajv compile + validate", `${ms(ajvCold)} ms`, "1.00"],
    ["payload cold: bare @cfworker Validator build + validate", `${ms(bareCold)} ms`, `${ratio(bareCold, ajvCold)} x ajv cold`],
    [`payload warm: ours (${firstResult.approved ? "valid" : "invalid"} example)`, `${ms(oursWarm)} ms`, `${ratio(oursWarm, bareWarm)} x bare Validator (target <= 1.5)`],
    ["payload warm: bare @cfworker Validator", `${ms(bareWarm)} ms`, "1.00"],
    ["payload warm: ajv (compiled code; not allowed in Workers)", `${ms(ajvWarm)} ms`, `${ratio(ajvWarm, bareWarm)} x bare Validator`],
    ...referenceRows(paired),
    ...exchangeRows(text),
  ];
  const memoryRows: [string, string][] = memory
    ? [
        ["check completed under --max-old-space-size=128", "yes"],
        ["heap used with both documents loaded", `${memory.heapBeforeMB?.toFixed(1)} MB`],
        ["heap growth during the check (before GC)", `${memory.heapGrowthDuringCheckMB?.toFixed(1)} MB`],
        ["retained after the check (indexes, after GC)", `${memory.retainedAfterGcMB?.toFixed(1)} MB`],
        ["process peak RSS before / after the check", `${memory.maxRssBeforeMB?.toFixed(0)} MB / ${memory.maxRssAfterMB?.toFixed(0)} MB`],
      ]
    : [["check under --max-old-space-size=128", `FAILED (exit ${child.status}): ${child.stderr.split("\n").slice(0, 3).join(" ")}`]];

  const table = ["| Measurement | Median | Ratio |", "| --- | ---: | --- |", ...rows.map(([name, value, note]) => `| ${name} | ${value} | ${note} |`)].join("\n");
  const memoryTable = ["| Memory (GitHub description, mutated copy) | Value |", "| --- | ---: |", ...memoryRows.map(([name, value]) => `| ${name} | ${value} |`)].join("\n");
  const targets = [
    `- Verdict at most half of JSON.parse: ${verdictRatio <= 0.5 ? "met" : "MISSED"} (${verdictRatio.toFixed(2)}x cold as uploads run it, ${verdictFromBareParse.ratio.toFixed(2)}x cold from bare JSON.parse, ${verdictWarm.ratio.toFixed(2)}x warm).`,
    `- Payload cold path faster than ajv compile + validate: ${oursCold < ajvCold ? "met" : "MISSED"} (${ratio(oursCold, ajvCold)}x).`,
    `- Payload wrapper within 1.5x of a bare Validator: ${oursWarm <= bareWarm * 1.5 ? "met" : "MISSED"} (${ratio(oursWarm, bareWarm)}x).`,
    `- Peak memory: ${memory ? "the check ran with a 128 MB heap limit" : "the check did NOT fit in a 128 MB heap"}.`,
  ].join("\n");
  const header = `Run ${date} on ${nproc} CPU(s), ${cpu}, Node ${process.version}. Load average at start: ${loadavg().map((value) => value.toFixed(1)).join(" ")}.`;
  console.log(`${header}\n\n${table}\n\n${memoryTable}\n\n${targets}`);
  const report = [
    "# Benchmarks",
    "",
    "Produced by `npm run bench` (bench/conformance.bench.ts), which overwrites this file. Inputs: GitHub's REST API",
    "description from `@octokit/openapi` (13 MB JSON, 1223 operations) and a mutated copy (operations removed and added,",
    "404s removed, property types changed); the payload case is `GET /repos/{owner}/{repo}` with GitHub's own example.",
    "Baselines run in the same process: ratios matter, absolute times depend on the machine and its load. Each time is",
    "the median of several rounds, each after a full GC. \"Upload and index\" runs the Worker's own upload code in Node",
    "(store/parse-upload.ts: decode, parse + validate; SHA-256 via WebCrypto as store/hash.ts; the 1 MiB pieces for the",
    "Durable Object) and indexes the result; the RPCs and SQLite writes need workerd and are not included.",
    "\"Cold\" verdicts start from freshly parsed documents. The target row takes them as a snapshot upload hands them to",
    "the verdict (store/uploads.ts): the snapshot parsed and validated, then the contract loaded, parsed and validated;",
    "validation has resolved every `$ref` once and the index reuses those resolutions, while indexes, comparisons and",
    "rules run inside the timed part. The row below it starts from bare `JSON.parse` output, so every `$ref` is also",
    "resolved inside the timed part. \"Warm\" reuses the two documents' indexes. Verdict ratios are taken per round,",
    "against a JSON.parse of the same text timed in that round just before, and the median is reported with the middle",
    "half of the rounds; the other ratios divide two medians.",
    "The recorded-traffic rows validate 1,000 exchanges of GitHub's API built from its examples (bench/github-exchanges.ts),",
    "read from a HAR file, request and response, in exchanges per second beside the per-payload figure (README \"Tests and",
    "benchmark\"); `BENCH_ONLY=exchanges npm run bench` runs only them.",
    "",
    header,
    "",
    table,
    "",
    memoryTable,
    "",
    "## Targets",
    "",
    targets,
    "",
  ].join("\n");
  writeFileSync(new URL("../BENCHMARKS.md", import.meta.url), report);
}

/** `npm run bench -- --only=references`: the reference rows alone, printed (BENCHMARKS.md is left as it is). */
function referencesOnly(): void {
  const rows = referenceRows(pairedNote);
  const header = `Run ${new Date().toISOString()} on ${execFileSync("nproc", { encoding: "utf8" }).trim()} CPU(s), Node ${process.version}. Load average at start: ${loadavg().map((value) => value.toFixed(1)).join(" ")}.`;
  console.log([header, "", "| Measurement | Median | Ratio |", "| --- | ---: | --- |", ...rows.map(([name, value, note]) => `| ${name} | ${value} | ${note} |`)].join("\n"));
}

const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length) ?? process.env.BENCH_ONLY;
if (process.argv.includes("--memory-child")) memoryChild();
// One row group alone (BENCHMARKS.md untouched): --only=references or --only=exchanges (BENCH_ONLY=... also works).
else if (only === "references") referencesOnly();
else if (only === "exchanges") await exchangesOnly();
else if (only) throw new Error(`--only=${only} is not a row group: use references or exchanges, or leave it out for every row`);
else await main();
