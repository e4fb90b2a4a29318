/**
 * `npm run bench`: the conformance engine on GitHub's REST API description (13 MB, 1223 operations), side by side
 * with baselines measured in the same run: JSON.parse of the same text, and ajv / a bare @cfworker/json-schema
 * Validator for payload validation. Prints a table, writes its section of docs/benchmark-results.md and its
 * headline rows of BENCHMARKS.md. Timings are medians; the targets are ratios, because absolute numbers depend on
 * the machine (and on what else runs on it). `BENCH_ONLY=exchanges npm run bench` runs only the recorded-traffic
 * rows and prints them (nothing is written).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Validator } from "@cfworker/json-schema";
import Ajv2020 from "ajv/dist/2020.js";
import { getConformanceConfig } from "../src/engine/verdict/config";
import { parseOpenApiDocument } from "../src/engine/load/document";
import { checkConformance } from "../src/engine/engine";
import { parseExchanges } from "../src/engine/exchanges/parse";
import { createExchangeValidator } from "../src/engine/exchanges/validate";
import { createPayloadValidator } from "../src/engine/payload/payload";
import { convertToJsonSchema } from "../src/engine/payload/payload-schema";
import { parseDocumentBytes } from "../src/engine/load/parse-upload";
import type { OpenApiDocument } from "../src/engine/types";
import { githubExchanges, harOf } from "./github-exchanges";
import { githubText, mutatedCopy } from "./github-fixture";
import { chainText, diamondText, fanOutText } from "./reference-fixtures";
import {
  measureUpload,
  PairedTimer,
  pairedNote,
  uploadTableRows,
  uploadTargetLines,
  type Paired,
  type UploadMeasurements,
} from "./upload-rows";
import { startWranglerDev } from "../test/helpers/wrangler-dev";
import { FLOOR_WAYS, type FloorWay, measureRestUpload, type RestMeasurements } from "./rest-upload";
import { RESULTS, updateHeadlines, writeSection, type Headline } from "./headlines";

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

const nodeClock = { now: () => performance.now(), gc };

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

/** What uploads run: the bundled policies/conformance.json and policies/constitution.json. */
const config = getConformanceConfig();

const kilobytes = (text: string) => `${Math.round(new TextEncoder().encode(text).byteLength / 1024)} KB`;

/**
 * Documents built to make reference resolution explode (reference-fixtures.ts), each timed beside JSON.parse of the
 * same text: the upload's parse and validation (parseDocumentBytes), and the verdict for the diamond.
 */
async function referenceRows(paired: (measured: Paired) => string): Promise<[string, string, string][]> {
  const timer = new PairedTimer(nodeClock, 15);
  const ms = (value: number) => value.toFixed(value < 1 ? 3 : 1);
  const chain = chainText(5000);
  const chainBytes = new TextEncoder().encode(chain);
  const chainRefused = parseDocumentBytes(chainBytes);
  if (chainRefused.ok) throw new Error("the 5,000-link chain was accepted");
  const chainParse = await timer.measure(
    chain,
    () => undefined,
    () => parseDocumentBytes(chainBytes),
  );
  const fanOut = fanOutText(400, 200);
  const fanOutBytes = new TextEncoder().encode(fanOut);
  if (!parseDocumentBytes(fanOutBytes).ok) throw new Error("the fan-out was refused");
  const fanOutParse = await timer.measure(
    fanOut,
    () => undefined,
    () => parseDocumentBytes(fanOutBytes),
  );
  const diamondContract = diamondText(40, "string");
  const diamondSnapshot = diamondText(40, "integer");
  const diamondViolations = checkConformance(
    validated(diamondContract),
    validated(diamondSnapshot),
    config,
  ).totalViolations;
  const diamond = await timer.measure(
    diamondSnapshot,
    () => [validated(diamondContract), validated(diamondSnapshot)] as const,
    ([contract, snapshot]) => checkConformance(contract, snapshot, config),
  );
  return [
    [
      `parse + validate a 5,000-link $ref chain (${kilobytes(chain)}; refused at the 32-link limit; 9.4 s before linear resolution)`,
      `${ms(chainParse.ms)} ms`,
      paired(chainParse),
    ],
    [
      `parse + validate a fan-out: 400 schemas x 200 $refs to the same 200 schemas (${kilobytes(fanOut)}, 80,000 $refs; accepted)`,
      `${ms(fanOutParse.ms)} ms`,
      paired(fanOutParse),
    ],
    [
      `verdict on a 40-level diamond, 2^40 paths to one changed type (${kilobytes(diamondSnapshot)}; ${diamondViolations} violations listed; out of memory before)`,
      `${ms(diamond.ms)} ms`,
      paired(diamond),
    ],
  ];
}

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
  process.stdout.write(
    JSON.stringify({
      heapBeforeMB: before.heapUsed / 1e6,
      heapGrowthDuringCheckMB: (after.heapUsed - before.heapUsed) / 1e6,
      retainedAfterGcMB: retained / 1e6,
      maxRssBeforeMB: rssBefore / 1024,
      maxRssAfterMB: rssAfter / 1024,
      violations: verdict.totalViolations,
    }),
  );
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
  const read = time(
    rounds,
    () => undefined,
    () => parseExchanges(harText, "application/json"),
  );
  const cold = time(
    5,
    () => createExchangeValidator(),
    (validator) => validator.validate(document, "bench", parsed.exchanges),
  );
  const warmValidator = createExchangeValidator();
  const verdict = warmValidator.validate(document, "bench", parsed.exchanges);
  const warm = time(
    rounds,
    () => undefined,
    () => warmValidator.validate(document, "bench", parsed.exchanges),
  );
  const payloads = exchanges.map((exchange) => ({
    method: exchange.method,
    path: new URL(exchange.url).pathname,
    status: exchange.status,
    payload: exchange.responseBody,
  }));
  const payloadValidator = createPayloadValidator();
  for (const input of payloads) payloadValidator.validate(document, "bench", input);
  const allPayloads = time(
    rounds,
    () => undefined,
    () => {
      for (const input of payloads) payloadValidator.validate(document, "bench", input);
    },
  );
  // The per-payload figure of the payload rows above: one operation, its validator cached.
  const operation = (document as Record<string, any>).paths["/repos/{owner}/{repo}"].get;
  const exampleRef = operation.responses["200"].content["application/json"].examples["default-response"].$ref as string;
  const single = {
    method: "GET",
    path: "/repos/octocat/hello-world",
    status: 200,
    payload: (document as Record<string, any>).components.examples[exampleRef.split("/").pop() as string].value,
  };
  const singleValidator = createPayloadValidator();
  const perPayload = perOperation(2000, () => singleValidator.validate(document, "bench", single));
  const rate = (ms: number, count = EXCHANGE_COUNT) => `${Math.round((count * 1000) / ms).toLocaleString("en-US")}/s`;
  const ms = (value: number) => value.toFixed(value < 1 ? 3 : 1);
  return [
    [
      `${EXCHANGE_COUNT} recorded exchanges of GitHub (${operations} operations, HAR ${(harText.length / 1e6).toFixed(1)} MB): read the HAR`,
      `${ms(read)} ms`,
      `${rate(read)} exchanges`,
    ],
    [
      `${EXCHANGE_COUNT} exchanges validated, request + response, warm (${verdict.totalViolations} violations: GitHub's examples vs its schemas)`,
      `${ms(warm)} ms`,
      `${rate(warm)} exchanges; ${(warm / EXCHANGE_COUNT / perPayload).toFixed(2)} x the per-payload time`,
    ],
    [
      `${EXCHANGE_COUNT} exchanges validated, cold (every validator built inside the timed part)`,
      `${ms(cold)} ms`,
      `${rate(cold)} exchanges`,
    ],
    [
      "per-payload figure: one payload through validate_response_payload's validator, warm (GET /repos/{owner}/{repo})",
      `${ms(perPayload)} ms`,
      `${rate(perPayload, 1)} payloads; 1.00`,
    ],
    [
      `the same ${EXCHANGE_COUNT} response payloads through that validator, second pass (${operations} operations exceed its 500-validator cache: most are rebuilt)`,
      `${ms(allPayloads)} ms`,
      `${rate(allPayloads)} payloads`,
    ],
  ];
}

async function exchangesOnly(): Promise<void> {
  const header = `Run ${new Date().toISOString()} on ${execFileSync("nproc", { encoding: "utf8" }).trim()} CPU(s), ${cpus()[0]?.model ?? "unknown"}, Node ${process.version}. Load average at start: ${loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")}.`;
  const rows = exchangeRows(githubText());
  console.log(
    `${header}\n\n| Measurement | Median | Rate |\n| --- | ---: | --- |\n${rows.map(([name, value, note]) => `| ${name} | ${value} | ${note} |`).join("\n")}`,
  );
}

/** The verdict and upload measurements in both runtimes: Node (this process) and workerd (the Worker's runtime). */
interface UploadRuns {
  node: UploadMeasurements;
  workerd: UploadMeasurements | { failed: string };
  workerdVersion: string;
}

const UPLOAD_ROUNDS = 15;

/**
 * bench/upload-rows.ts inside workerd: bench/workerd/bench.worker.ts under `wrangler dev`, with V8's gc() exposed
 * (MINIFLARE_WORKERD_V8_FLAGS), the two documents sent once, every round timed inside the Worker.
 */
async function measureInWorkerd(contractText: string, snapshotText: string): Promise<UploadMeasurements> {
  const server = await startWranglerDev({
    config: "bench/workerd/wrangler.toml",
    processEnv: { MINIFLARE_WORKERD_V8_FLAGS: "--expose-gc" },
    readyTimeoutMs: 120_000,
  });
  try {
    for (const [side, body] of [
      ["contract", contractText],
      ["snapshot", snapshotText],
    ] as const) {
      const sent = await fetch(`${server.url}/documents/${side}`, { method: "PUT", body });
      if (!sent.ok) throw new Error(`PUT /documents/${side}: ${sent.status} ${await sent.text()}`);
    }
    const answer = await fetch(`${server.url}/measure?rounds=${UPLOAD_ROUNDS}`, {
      method: "POST",
      signal: AbortSignal.timeout(600_000),
    });
    if (!answer.ok) throw new Error(`POST /measure: ${answer.status} ${await answer.text()}`);
    return (await answer.json()) as UploadMeasurements;
  } finally {
    await server.stop();
  }
}

/** The workerd that `wrangler dev` runs: wrangler's own dependency, which may differ from a top-level one. */
function workerdVersion(): string {
  const fromWrangler = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));
  return (JSON.parse(readFileSync(fromWrangler.resolve("workerd/package.json"), "utf8")) as { version: string })
    .version;
}

async function uploadRuns(text: string): Promise<UploadRuns> {
  const mutatedText = JSON.stringify(mutatedCopy(text), null, 2);
  const encoder = new TextEncoder();
  const node = await measureUpload(encoder.encode(text), encoder.encode(mutatedText), UPLOAD_ROUNDS, nodeClock);
  let workerd: UploadRuns["workerd"];
  try {
    workerd = await measureInWorkerd(text, mutatedText);
  } catch (error) {
    workerd = { failed: (error as Error).message.split("\n").slice(0, 3).join(" ") };
  }
  return { node, workerd, workerdVersion: workerdVersion() };
}

const WORKERD = "workerd";
const NODE = "Node";

function uploadRowsOf(runs: UploadRuns): [string, string, string][] {
  const workerd: [string, string, string][] =
    "failed" in runs.workerd
      ? [[`${WORKERD}: the upload rows could not run`, "-", `FAILED: ${runs.workerd.failed}`]]
      : uploadTableRows(runs.workerd, WORKERD);
  return [...workerd, ...uploadTableRows(runs.node, NODE)];
}

function uploadTargetsOf(runs: UploadRuns): string[] {
  const workerd =
    "failed" in runs.workerd
      ? [`- ${WORKERD}: NOT MEASURED (${runs.workerd.failed}).`]
      : uploadTargetLines(runs.workerd, `${WORKERD} (the Worker's runtime, where uploads run)`);
  return [...workerd, ...uploadTargetLines(runs.node, NODE)];
}

const REST_ROUNDS = 7;

/** The REST rows: GitHub's description as the stored active contract, a new mutated copy uploaded each round. */
async function restRuns(text: string): Promise<RestMeasurements | { failed: string }> {
  const mutated = mutatedCopy(text) as { info: { version: string } };
  const snapshotOf = (round: number) => {
    mutated.info.version = `bench-${round}`;
    return JSON.stringify(mutated, null, 2);
  };
  try {
    return await measureRestUpload(text, snapshotOf, REST_ROUNDS);
  } catch (error) {
    return { failed: (error as Error).message.split("\n").slice(0, 3).join(" ") };
  }
}

function restRowsOf(rest: RestMeasurements | { failed: string }): [string, string, string][] {
  if ("failed" in rest) return [["REST end to end: the rows could not run", "-", `FAILED: ${rest.failed}`]];
  const ms = (value: number) => value.toFixed(1);
  return [
    [
      `REST end to end over wrangler dev (what CI waits for): POST /snapshots of a new 13 MB mutated copy with a CI key, GitHub's description the stored active contract (${rest.violations} violations), request sent to answer read; ${REST_ROUNDS} rounds`,
      `${ms(rest.large.ms)} ms`,
      pairedNote(rest.large, " of the snapshot, in Node (target <= 5)"),
    ],
    ...FLOOR_WAYS.map((way): [string, string, string] => [
      `REST floor (bench/rest-floor/: no parse, verdict or record), the same body in the same rounds: ${FLOOR_WHAT[way]}`,
      `${ms(rest.floor[way].ms)} ms`,
      pairedNote(rest.floor[way], " of the snapshot, in Node"),
    ]),
    [
      `REST end to end: a one-operation snapshot against a one-operation contract (store calls, not compute); ${3 * REST_ROUNDS} rounds`,
      `${ms(rest.small.ms)} ms`,
      `middle half ${ms(rest.small.low)}-${ms(rest.small.high)} ms`,
    ],
  ];
}

/** What each way of the floor Worker does with the body (bench/rest-floor/worker.ts). */
const FLOOR_WHAT: Record<FloorWay, string> = {
  body: "the body read and its length answered",
  bucket: "the body read, hashed and put in the local bucket with R2's SHA-256 check, as the product stores it",
  stream: "the body streamed into the local bucket as it arrives, nothing buffered or checked",
};

function restTargetOf(rest: RestMeasurements | { failed: string }): string {
  if ("failed" in rest) return `- REST end to end: NOT MEASURED (${rest.failed}).`;
  const floor = (way: FloorWay) =>
    `${rest.floor[way].ratio.toFixed(2)}x (${rest.floor[way].low.toFixed(2)}-${rest.floor[way].high.toFixed(2)})`;
  return [
    `- REST end to end (GitHub's 13 MB description, active contract stored) at most 5x JSON.parse of the snapshot: ${rest.large.ratio <= 5 ? "met" : "MISSED"} (${rest.large.ratio.toFixed(2)}x, middle half ${rest.large.low.toFixed(2)}-${rest.large.high.toFixed(2)}; ${rest.large.ms.toFixed(0)} ms median).`,
    `  Its floor under wrangler dev, same rounds: the body alone ${floor("body")}; stored in the local bucket as the product stores it ${floor("bucket")}; streamed into it ${floor("stream")}.`,
  ].join("\n");
}

async function main(): Promise<void> {
  const text = githubText();
  const rounds = 7;

  const jsonParse = time(
    rounds,
    () => undefined,
    () => JSON.parse(text),
  );
  const parseAndCheck = time(
    rounds,
    () => undefined,
    () => parseOpenApiDocument(text),
  );
  const upload = await uploadRuns(text);
  const rest = await restRuns(text);

  const self = fileURLToPath(import.meta.url);
  const child = spawnSync(
    process.execPath,
    [
      "--max-old-space-size=128",
      "--expose-gc",
      "--experimental-transform-types",
      "--no-warnings",
      "--import",
      new URL("./ts-resolve.mjs", import.meta.url).pathname,
      self,
      "--memory-child",
    ],
    { encoding: "utf8" },
  );
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

  const oursCold = time(
    25,
    () => createPayloadValidator(),
    (validator) => validator.validate(document, "bench", input),
  );
  const ajvCold = time(
    25,
    () => JSON.parse(convertedText),
    (copy) => new Ajv2020({ strict: false, validateFormats: false, allErrors: true }).compile(copy)(payload),
  );
  const bareCold = time(
    25,
    () => JSON.parse(convertedText),
    (copy) => new Validator(copy, "2020-12", false).validate(payload),
  );
  const warmValidator = createPayloadValidator();
  const firstResult = warmValidator.validate(document, "bench", input);
  const oursWarm = perOperation(2000, () => warmValidator.validate(document, "bench", input));
  const bare = new Validator(JSON.parse(convertedText), "2020-12", false);
  const bareWarm = perOperation(2000, () => bare.validate(payload));
  const ajvCompiled = new Ajv2020({ strict: false, validateFormats: false, allErrors: true }).compile(
    JSON.parse(convertedText),
  );
  const ajvWarm = perOperation(2000, () => ajvCompiled(payload));

  const cpu = cpus()[0]?.model ?? "unknown";
  const nproc = execFileSync("nproc", { encoding: "utf8" }).trim();
  const date = new Date().toISOString();
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  const ms = (value: number) => value.toFixed(value < 1 ? 3 : 1);
  const paired = pairedNote;

  const rows: [string, string, string][] = [
    ["JSON.parse of the document (baseline)", `${ms(jsonParse)} ms`, "1.00"],
    ...uploadRowsOf(upload),
    ...restRowsOf(rest),
    [
      "parseOpenApiDocument of the contract's text (JSON.parse + structural + unknown-field checks, $ref resolution)",
      `${ms(parseAndCheck)} ms`,
      `${ratio(parseAndCheck, jsonParse)} x JSON.parse (ratio of medians)`,
    ],
    [
      "payload cold: ours (convert + build + validate)",
      `${ms(oursCold)} ms`,
      `${ratio(oursCold, ajvCold)} x ajv cold (target < 1)`,
    ],
    ["payload cold: ajv compile + validate", `${ms(ajvCold)} ms`, "1.00"],
    [
      "payload cold: bare @cfworker Validator build + validate",
      `${ms(bareCold)} ms`,
      `${ratio(bareCold, ajvCold)} x ajv cold`,
    ],
    [
      `payload warm: ours (${firstResult.approved ? "valid" : "invalid"} example)`,
      `${ms(oursWarm)} ms`,
      `${ratio(oursWarm, bareWarm)} x bare Validator (target <= 1.5)`,
    ],
    ["payload warm: bare @cfworker Validator", `${ms(bareWarm)} ms`, "1.00"],
    [
      "payload warm: ajv (compiled code; not allowed in Workers)",
      `${ms(ajvWarm)} ms`,
      `${ratio(ajvWarm, bareWarm)} x bare Validator`,
    ],
    ...(await referenceRows(paired)),
    ...exchangeRows(text),
  ];
  const memoryRows: [string, string][] = memory
    ? [
        ["check completed under --max-old-space-size=128", "yes"],
        ["heap used with both documents loaded", `${memory.heapBeforeMB?.toFixed(1)} MB`],
        ["heap growth during the check (before GC)", `${memory.heapGrowthDuringCheckMB?.toFixed(1)} MB`],
        ["retained after the check (indexes, after GC)", `${memory.retainedAfterGcMB?.toFixed(1)} MB`],
        [
          "process peak RSS before / after the check",
          `${memory.maxRssBeforeMB?.toFixed(0)} MB / ${memory.maxRssAfterMB?.toFixed(0)} MB`,
        ],
      ]
    : [
        [
          "check under --max-old-space-size=128",
          `FAILED (exit ${child.status}): ${child.stderr.split("\n").slice(0, 3).join(" ")}`,
        ],
      ];

  const table = [
    "| Measurement | Median | Ratio |",
    "| --- | ---: | --- |",
    ...rows.map(([name, value, note]) => `| ${name} | ${value} | ${note} |`),
  ].join("\n");
  const memoryTable = [
    "| Memory (GitHub description, mutated copy) | Value |",
    "| --- | ---: |",
    ...memoryRows.map(([name, value]) => `| ${name} | ${value} |`),
  ].join("\n");
  const targets = [
    ...uploadTargetsOf(upload),
    restTargetOf(rest),
    `- Payload cold path faster than ajv compile + validate: ${oursCold < ajvCold ? "met" : "MISSED"} (${ratio(oursCold, ajvCold)}x).`,
    `- Payload wrapper within 1.5x of a bare Validator: ${oursWarm <= bareWarm * 1.5 ? "met" : "MISSED"} (${ratio(oursWarm, bareWarm)}x).`,
    `- Peak memory: ${memory ? "the check ran with a 128 MB heap limit" : "the check did NOT fit in a 128 MB heap"}.`,
  ].join("\n");
  const header = `Run ${date} on ${nproc} CPU(s), ${cpu}, Node ${process.version}, workerd ${upload.workerdVersion}. Load average at start: ${loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")}.`;
  console.log(`${header}\n\n${table}\n\n${memoryTable}\n\n${targets}`);
  const report = [
    "<!-- bench:verdict start -->",
    "## Verdict, upload, payload and traffic (`npm run bench`)",
    "",
    "Produced by `npm run bench` (bench/conformance.bench.ts), which rewrites only this section. Inputs: GitHub's REST API",
    "description from `@octokit/openapi` (13 MB JSON, 1223 operations) and a mutated copy (operations removed and added,",
    "404s removed, property types changed); the payload case is `GET /repos/{owner}/{repo}` with GitHub's own example.",
    "Baselines run in the same process: ratios matter, absolute times depend on the machine and its load. Each time is",
    "the median of several rounds, each after a full GC.",
    "Every verdict row runs the bundled policies (policies/conformance.json and policies/constitution.json, through",
    'getConformanceConfig(), as uploads do) unless its name says "CONSTITUTION OFF". The verdict and upload rows run',
    "twice, from one module (bench/upload-rows.ts): inside workerd, the runtime a deployed Worker runs in",
    "(bench/workerd/bench.worker.ts under `wrangler dev`, V8's gc() exposed with MINIFLARE_WORKERD_V8_FLAGS), and in this",
    "Node process. Rows say which. workerd's clock moves in whole milliseconds: parts shorter than a few milliseconds run",
    "several times per round (the row says how many). Only the two documents' bytes stay alive between rounds, as an",
    "upload holds its body. The target verdict row takes the documents as a snapshot upload hands them to the verdict",
    "(store/uploads.ts): the snapshot through parseDocumentBytes (unknown-field check on), the contract read back as",
    "loadStoredDocument does; validation has resolved every `$ref` once and the index reuses those resolutions, while",
    'indexes, comparisons and all rules run inside the timed part. "Cold from bare JSON.parse" also resolves every',
    '`$ref` inside the timed part; "warm" reuses both indexes. The whole-upload row calls the Worker\'s own functions,',
    "everything but the Durable Object RPCs and SQLite writes: parseDocumentBytes of the snapshot (UTF-8 decode,",
    "JSON.parse, structural and unknown-field checks, `$ref` resolution), sha256Hex (WebCrypto), the verdict and",
    "encodeVerdict (the body goes to the store as it is, cut there), with the contract already parsed; the row below it (the target",
    "row) reads the active contract back inside the timed part from its stored comparison form, as uploadSnapshot does, and",
    "the next from its uploaded bytes, parsed and validated again (a version stored before forms; every upload before",
    "them). The REST rows run the product Worker under `wrangler dev`: a CI key POSTs a new mutated copy each round",
    "with GitHub's description stored as the active contract, timed from the first byte sent to the answer read, beside",
    "JSON.parse of the same text in this Node process (bench/rest-upload.ts; `--only=rest` prints them alone); the REST",
    "floor rows POST the same body in the same rounds to a Worker that only reads it or stores it in its local R2 bucket",
    '(bench/rest-floor/worker.ts): what moving and keeping the bytes costs under `wrangler dev`, before any work. "Upload',
    'part" rows time one step each. Paired rows ("per-round") take each round\'s ratio against a JSON.parse of the same',
    "text timed in that round just before, in the same runtime (the snapshot's text for the upload rows, the contract's",
    "for the verdict rows), and report the median with the middle half of the rounds; the other ratios divide two",
    "medians. `npm run bench -- --only=upload` prints the verdict and upload rows alone.",
    "The recorded-traffic rows validate 1,000 exchanges of GitHub's API built from its examples (bench/github-exchanges.ts),",
    'read from a HAR file, request and response, in exchanges per second beside the per-payload figure (README "Tests and',
    'benchmark"); `BENCH_ONLY=exchanges npm run bench` runs only them.',
    "",
    header,
    "",
    table,
    "",
    memoryTable,
    "",
    "### Targets",
    "",
    targets,
    "<!-- bench:verdict end -->",
  ].join("\n");
  writeSection(RESULTS, "bench:verdict", report);
  const run = `${date.slice(0, 10)}, \`npm run bench\``;
  const headlines: Headline[] = [
    {
      measure: "Payload validation cold (x ajv compile + validate)",
      ratio: oursCold / ajvCold,
      target: { op: "<=", value: 1 },
      spread: "one median each",
      run,
    },
    {
      measure: "Payload validation warm (x a bare @cfworker Validator)",
      ratio: oursWarm / bareWarm,
      target: { op: "<=", value: 1.5 },
      spread: "one median each",
      run,
    },
  ];
  if (!("failed" in upload.workerd)) {
    const { verdictCold, uploadWithContract } = upload.workerd;
    headlines.push(
      {
        measure: "Verdict as an upload runs it, workerd (x JSON.parse)",
        ratio: verdictCold.ratio,
        target: { op: "<=", value: 0.5 },
        spread: `${verdictCold.low.toFixed(2)}-${verdictCold.high.toFixed(2)} (middle half of the rounds)`,
        run,
      },
      {
        measure: "Whole snapshot upload in the Worker's code, workerd (x JSON.parse)",
        ratio: uploadWithContract.ratio,
        target: { op: "<=", value: 3 },
        spread: `${uploadWithContract.low.toFixed(2)}-${uploadWithContract.high.toFixed(2)} (middle half of the rounds)`,
        run,
      },
    );
  }
  if (!("failed" in rest)) {
    headlines.push({
      measure: "REST upload end to end, GitHub's 13 MB description (x JSON.parse)",
      ratio: rest.large.ratio,
      target: { op: "<=", value: 5 },
      spread: `${rest.large.low.toFixed(2)}-${rest.large.high.toFixed(2)} (middle half of ${REST_ROUNDS} rounds); its floor, the body only stored in the local bucket (bench/rest-floor/), ${rest.floor.bucket.ratio.toFixed(2)} as the product stores it, ${rest.floor.stream.ratio.toFixed(2)} streamed`,
      run,
    });
  }
  updateHeadlines(headlines);
}

/** `npm run bench -- --only=upload`: the verdict and upload rows with their targets, printed (nothing is written). */
async function uploadOnly(): Promise<void> {
  const measured = await uploadRuns(githubText());
  const header = `Run ${new Date().toISOString()} on ${execFileSync("nproc", { encoding: "utf8" }).trim()} CPU(s), Node ${process.version}, workerd ${measured.workerdVersion}. Load average at start: ${loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")}.`;
  console.log(
    [
      header,
      "",
      "| Measurement | Median | Ratio |",
      "| --- | ---: | --- |",
      ...uploadRowsOf(measured).map(([name, value, note]) => `| ${name} | ${value} | ${note} |`),
      "",
      ...uploadTargetsOf(measured),
    ].join("\n"),
  );
}

/** `npm run bench -- --only=rest`: the REST end-to-end rows alone, printed (nothing is written). */
async function restOnly(): Promise<void> {
  const header = `Run ${new Date().toISOString()} on ${execFileSync("nproc", { encoding: "utf8" }).trim()} CPU(s), Node ${process.version}. Load average at start: ${loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")}.`;
  const rest = await restRuns(githubText());
  console.log(
    [
      header,
      "",
      "| Measurement | Median | Ratio |",
      "| --- | ---: | --- |",
      ...restRowsOf(rest).map(([name, value, note]) => `| ${name} | ${value} | ${note} |`),
      "",
      restTargetOf(rest),
    ].join("\n"),
  );
}

/** `npm run bench -- --only=references`: the reference rows alone, printed (nothing is written). */
async function referencesOnly(): Promise<void> {
  const rows = await referenceRows(pairedNote);
  const header = `Run ${new Date().toISOString()} on ${execFileSync("nproc", { encoding: "utf8" }).trim()} CPU(s), Node ${process.version}. Load average at start: ${loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")}.`;
  console.log(
    [
      header,
      "",
      "| Measurement | Median | Ratio |",
      "| --- | ---: | --- |",
      ...rows.map(([name, value, note]) => `| ${name} | ${value} | ${note} |`),
    ].join("\n"),
  );
}

const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length) ?? process.env.BENCH_ONLY;
if (process.argv.includes("--memory-child")) memoryChild();
// One row group alone (nothing written): --only=upload, --only=rest, --only=references or --only=exchanges (BENCH_ONLY=... also works).
else if (only === "upload") await uploadOnly();
else if (only === "references") await referencesOnly();
else if (only === "rest") await restOnly();
else if (only === "exchanges") await exchangesOnly();
else if (only)
  throw new Error(
    `--only=${only} is not a row group: use upload, rest, references or exchanges, or leave it out for every row`,
  );
else await main();
