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
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Validator } from "@cfworker/json-schema";
import Ajv2020 from "ajv/dist/2020.js";
import { getConformanceConfig, loadConformanceConfig } from "../src/contracts/config";
import { parseOpenApiDocument } from "../src/contracts/document";
import { checkConformance } from "../src/contracts/engine";
import { indexDocument } from "../src/contracts/normalize-document";
import { parseExchanges } from "../src/contracts/exchanges/parse";
import { createExchangeValidator } from "../src/contracts/exchanges/validate";
import { createPayloadValidator } from "../src/contracts/payload";
import { convertToJsonSchema } from "../src/contracts/payload-schema";
import { checkOpenApiStructure } from "../src/contracts/document-checks";
import { findUnknownFields } from "../src/contracts/fixed-fields";
import { encodeVerdict } from "../src/contracts/store/encode-verdict";
import { sha256Hex } from "../src/contracts/store/hash";
import { parseDocumentBytes } from "../src/contracts/store/parse-upload";
import { bundledPolicyFiles } from "../src/policy/files";
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

/** Median over rounds of run / JSON.parse, async: `pairedWithParse` for runs that await (the upload hashes with WebCrypto). */
async function pairedWithParseAsync<T>(rounds: number, baselineText: string, prepare: () => T, run: (input: T) => Promise<unknown>): Promise<Paired> {
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
    await run(input);
    const elapsed = performance.now() - start;
    runs.push(elapsed);
    ratios.push(elapsed / parse);
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  const quarter = Math.floor(rounds / 4);
  return { ms: median(runs), ratio: median(ratios), low: sorted[quarter] ?? NaN, high: sorted[rounds - 1 - quarter] ?? NaN };
}

/**
 * A snapshot upload as store/uploads.ts uploadSnapshot runs it, with the Worker's own functions, everything but
 * the Durable Object RPCs and SQLite writes (they need workerd): parseDocumentBytes (UTF-8 decode, JSON.parse,
 * structural checks with the unknown-field check, every `$ref` resolved), sha256Hex (WebCrypto, as storeContent
 * computes the content address), the CHUNK_BYTES pieces storeContent sends (slice() copies, as there), then the
 * verdict with the bundled policies (getConformanceConfig(), constitution included) and encodeVerdict, as
 * recordSnapshot receives it. `readContract` is where uploadSnapshot reads the active contract back from storage:
 * given the stored bytes, it parses them as loadStoredDocument does (unknown fields ignored) inside the timed part.
 */
async function snapshotUpload(bytes: Uint8Array<ArrayBuffer>, readContract: () => OpenApiDocument): Promise<number> {
  const parsed = parseDocumentBytes(bytes);
  if (!parsed.ok) throw new Error(`the snapshot was refused: ${parsed.problems[0]?.message}`);
  const hash = await sha256Hex(bytes);
  let stored = 0;
  const chunkCount = Math.max(1, Math.ceil(bytes.byteLength / CHUNK_BYTES));
  for (let index = 0; index < chunkCount; index++) stored += bytes.slice(index * CHUNK_BYTES, Math.min((index + 1) * CHUNK_BYTES, bytes.byteLength)).byteLength;
  const verdict = checkConformance(readContract(), parsed.document, getConformanceConfig());
  return hash.length + stored + encodeVerdict(verdict).json.byteLength;
}

/** The stored contract read back as loadStoredDocument does (stored documents skip the unknown-field check). */
function storedDocument(bytes: Uint8Array): OpenApiDocument {
  const parsed = parseDocumentBytes(bytes, { unknownFields: "ignore" });
  if (!parsed.ok) throw new Error(`the stored contract was refused: ${parsed.problems[0]?.message}`);
  return parsed.document;
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

/** What uploads run: the bundled policies/conformance.json and policies/constitution.json. */
const config = getConformanceConfig();
/** The bundled conformance.json with the constitution emptied: only for the row labelled "constitution off". */
const constitutionOff = loadConformanceConfig({ ...bundledPolicyFiles, "constitution.json": { rules: {} } });

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

/**
 * The verdict and the whole snapshot upload on GitHub's description (the contract) against its mutated copy (the
 * snapshot), each round paired with JSON.parse of the same text, and the upload's parts on their own.
 */
async function uploadRows(text: string): Promise<{ rows: [string, string, string][]; verdictCold: Paired; upload: Paired; uploadWithContract: Paired; verdictOff: Paired }> {
  const contractBytes = new TextEncoder().encode(text);
  const mutatedText = JSON.stringify(mutatedCopy(text), null, 2);
  const snapshotBytes = new TextEncoder().encode(mutatedText);
  const rounds = 15;
  const ms = (value: number) => value.toFixed(value < 1 ? 3 : 1);
  // As uploadSnapshot hands them to the verdict: the snapshot through parseDocumentBytes (unknown-field check on),
  // the active contract read back as loadStoredDocument does; validation resolved every $ref once and the index
  // reuses those resolutions. Indexes, comparisons and every rule run inside the timed part.
  const asUploaded = () => {
    const snapshot = parseDocumentBytes(snapshotBytes);
    if (!snapshot.ok) throw new Error(`the mutated copy was refused: ${snapshot.problems[0]?.message}`);
    return [storedDocument(contractBytes), snapshot.document] as const;
  };
  const [firstContract, firstSnapshot] = asUploaded();
  const verdict = checkConformance(firstContract, firstSnapshot, config);
  const verdictOffCount = checkConformance(storedDocument(contractBytes), asUploaded()[1], constitutionOff).totalViolations;
  const verdictCold = pairedWithParse(rounds, text, asUploaded, ([contract, snapshot]) => checkConformance(contract, snapshot, config));
  const verdictOff = pairedWithParse(rounds, text, asUploaded, ([contract, snapshot]) => checkConformance(contract, snapshot, constitutionOff));
  const verdictFromBareParse = pairedWithParse(rounds, text, () => [JSON.parse(text) as OpenApiDocument, mutatedCopy(text) as OpenApiDocument] as const, ([contract, snapshot]) => checkConformance(contract, snapshot, config));
  const [warmContract, warmSnapshot] = asUploaded();
  checkConformance(warmContract, warmSnapshot, config);
  const verdictWarm = pairedWithParse(rounds, text, () => undefined, () => checkConformance(warmContract, warmSnapshot, config));

  // The whole upload: with the contract already parsed (as the verdict receives it), and with the contract's
  // stored bytes parsed inside the timed part too (uploadSnapshot reads it back after storing the snapshot).
  const upload = await pairedWithParseAsync(rounds, mutatedText, () => storedDocument(contractBytes), (contract) => snapshotUpload(snapshotBytes, () => contract));
  const uploadWithContract = await pairedWithParseAsync(rounds, mutatedText, () => undefined, () => snapshotUpload(snapshotBytes, () => storedDocument(contractBytes)));

  // Its parts, each on the snapshot's bytes and beside JSON.parse of the same text.
  const decode = pairedWithParse(rounds, mutatedText, () => undefined, () => new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(snapshotBytes));
  const parseBytes = pairedWithParse(rounds, mutatedText, () => undefined, () => parseDocumentBytes(snapshotBytes));
  const structure = pairedWithParse(rounds, mutatedText, () => JSON.parse(mutatedText) as OpenApiDocument, (document) => checkOpenApiStructure(document, false, { unknownFields: "ignore" }));
  const unknownFields = pairedWithParse(rounds, mutatedText, () => JSON.parse(mutatedText) as OpenApiDocument, (document) => findUnknownFields(document, String(document.openapi)));
  const hash = await pairedWithParseAsync(rounds, mutatedText, () => undefined, () => sha256Hex(snapshotBytes));
  const pieces = pairedWithParse(rounds, mutatedText, () => undefined, () => {
    for (let offset = 0; offset < snapshotBytes.byteLength; offset += CHUNK_BYTES) snapshotBytes.slice(offset, offset + CHUNK_BYTES);
  });
  const index = pairedWithParse(rounds, text, () => storedDocument(contractBytes), (document) => indexDocument(document));
  const encoded = pairedWithParse(rounds, text, () => undefined, () => encodeVerdict(verdict));

  const counts = `${verdict.totalViolations} violations: ${verdict.summary.map((entry) => `${entry.count} ${entry.rule}`).join(", ")}`;
  const rows: [string, string, string][] = [
    [`verdict vs mutated copy as a snapshot upload runs it: bundled policies, constitution included (${counts}); documents as uploadSnapshot hands them over`, `${ms(verdictCold.ms)} ms`, pairedNote(verdictCold, " (target <= 0.50)")],
    [`whole snapshot upload in the Worker's code path but the Durable Object RPCs: decode, parse, structural + unknown-field checks, SHA-256, 1 MiB pieces, the verdict above, encodeVerdict; contract already parsed`, `${ms(upload.ms)} ms`, pairedNote(upload, " of the snapshot (target <= 3)")],
    ["the same upload, with the active contract's stored bytes parsed and validated inside the timed part too (uploadSnapshot reads it back after storing the snapshot)", `${ms(uploadWithContract.ms)} ms`, pairedNote(uploadWithContract, " of the snapshot")],
    [`verdict, CONSTITUTION OFF (bundled conformance.json, constitution.json emptied; not what uploads run; ${verdictOffCount} violations)`, `${ms(verdictOff.ms)} ms`, pairedNote(verdictOff)],
    ["verdict with the bundled policies, cold from bare JSON.parse (every $ref resolved inside the timed part)", `${ms(verdictFromBareParse.ms)} ms`, pairedNote(verdictFromBareParse)],
    ["verdict with the bundled policies, warm (indexes cached)", `${ms(verdictWarm.ms)} ms`, pairedNote(verdictWarm)],
    ["upload part: UTF-8 decode of the snapshot (TextDecoder, fatal)", `${ms(decode.ms)} ms`, pairedNote(decode)],
    ["upload part: parseDocumentBytes of the snapshot (decode, JSON.parse, structural + unknown-field checks, $ref resolution)", `${ms(parseBytes.ms)} ms`, pairedNote(parseBytes)],
    ["upload part: structural checks and $ref resolution alone (checkOpenApiStructure, unknown fields ignored)", `${ms(structure.ms)} ms`, pairedNote(structure)],
    ["upload part: unknown-field check alone (findUnknownFields)", `${ms(unknownFields.ms)} ms`, pairedNote(unknownFields)],
    ["upload part: SHA-256 content address (sha256Hex, WebCrypto)", `${ms(hash.ms)} ms`, pairedNote(hash)],
    ["upload part: 1 MiB pieces (slice copies, as storeContent)", `${ms(pieces.ms)} ms`, pairedNote(pieces)],
    ["upload part: encodeVerdict of the verdict above", `${ms(encoded.ms)} ms`, pairedNote(encoded)],
    ["index one parsed document (operations, keys, parameters)", `${ms(index.ms)} ms`, pairedNote(index)],
  ];
  return { rows, verdictCold, upload, uploadWithContract, verdictOff };
}

const uploadTargets = (measured: Awaited<ReturnType<typeof uploadRows>>) => [
  `- Verdict as an upload runs it (bundled policies, constitution included) at most 0.5x JSON.parse: ${measured.verdictCold.ratio <= 0.5 ? "met" : "MISSED"} (${measured.verdictCold.ratio.toFixed(2)}x, middle half ${measured.verdictCold.low.toFixed(2)}-${measured.verdictCold.high.toFixed(2)}; constitution off: ${measured.verdictOff.ratio.toFixed(2)}x).`,
  `- Whole snapshot upload at most 3x JSON.parse of the snapshot: ${measured.upload.ratio <= 3 ? "met" : "MISSED"} (${measured.upload.ratio.toFixed(2)}x, middle half ${measured.upload.low.toFixed(2)}-${measured.upload.high.toFixed(2)}, contract already parsed; ${measured.uploadWithContract.ratio.toFixed(2)}x with the contract read back and parsed too).`,
];

async function main(): Promise<void> {
  const text = githubText();
  const rounds = 7;

  const jsonParse = time(rounds, () => undefined, () => JSON.parse(text));
  const parseAndCheck = time(rounds, () => undefined, () => parseOpenApiDocument(text));
  const upload = await uploadRows(text);

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
  const paired = pairedNote;

  const rows: [string, string, string][] = [
    ["JSON.parse of the document (baseline)", `${ms(jsonParse)} ms`, "1.00"],
    ...upload.rows,
    ["parseOpenApiDocument of the contract's text (JSON.parse + structural + unknown-field checks, $ref resolution)", `${ms(parseAndCheck)} ms`, `${ratio(parseAndCheck, jsonParse)} x JSON.parse (ratio of medians)`],
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
    ...uploadTargets(upload),
    `- Payload cold path faster than ajv compile + validate: ${oursCold < ajvCold ? "met" : "MISSED"} (${ratio(oursCold, ajvCold)}x).`,
    `- Payload wrapper within 1.5x of a bare Validator: ${oursWarm <= bareWarm * 1.5 ? "met" : "MISSED"} (${ratio(oursWarm, bareWarm)}x).`,
    `- Peak memory: ${memory ? "the check ran with a 128 MB heap limit" : "the check did NOT fit in a 128 MB heap"}.`,
  ].join("\n");
  const header = `Run ${date} on ${nproc} CPU(s), ${cpu}, Node ${process.version}. Load average at start: ${loadavg().map((value) => value.toFixed(1)).join(" ")}.`;
  console.log(`${header}\n\n${table}\n\n${memoryTable}\n\n${targets}`);
  const report = [
    "# Benchmarks",
    "",
    "Produced by `npm run bench` (bench/conformance.bench.ts), which rewrites this file up to the `bench:mcp` section. Inputs: GitHub's REST API",
    "description from `@octokit/openapi` (13 MB JSON, 1223 operations) and a mutated copy (operations removed and added,",
    "404s removed, property types changed); the payload case is `GET /repos/{owner}/{repo}` with GitHub's own example.",
    "Baselines run in the same process: ratios matter, absolute times depend on the machine and its load. Each time is",
    "the median of several rounds, each after a full GC.",
    "Every verdict row runs the bundled policies (policies/conformance.json and policies/constitution.json, through",
    "getConformanceConfig(), as uploads do) unless its name says \"CONSTITUTION OFF\". The target verdict row takes the",
    "documents as a snapshot upload hands them to the verdict (store/uploads.ts): the snapshot through parseDocumentBytes",
    "(unknown-field check on), the contract read back as loadStoredDocument does; validation has resolved every `$ref`",
    "once and the index reuses those resolutions, while indexes, comparisons and all rules run inside the timed part.",
    "\"Cold from bare JSON.parse\" also resolves every `$ref` inside the timed part; \"warm\" reuses both indexes.",
    "The whole-upload row calls the Worker's own functions in Node, everything but the Durable Object RPCs and SQLite",
    "writes (they need workerd): parseDocumentBytes of the snapshot (UTF-8 decode, JSON.parse, structural and",
    "unknown-field checks, `$ref` resolution), sha256Hex (WebCrypto), the 1 MiB pieces storeContent slices, the",
    "verdict and encodeVerdict, with the contract already parsed; the row below it parses the contract's stored bytes",
    "inside the timed part too, as uploadSnapshot does after storing the snapshot. \"Upload part\" rows time one step",
    "each. Paired rows (\"per-round\") take each round's ratio against a JSON.parse of the same text timed in that round",
    "just before (the snapshot's text for the upload rows, the contract's for the verdict rows) and report the median",
    "with the middle half of the rounds; the other ratios divide two medians. `npm run bench -- --only=upload` prints",
    "the verdict and upload rows alone.",
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
  // The section of `npm run bench:mcp` (bench/mcp.bench.ts) and everything after it is carried over: this script
  // owns only the part above it.
  const path = new URL("../BENCHMARKS.md", import.meta.url);
  const previous = existsSync(path) ? readFileSync(path, "utf8") : "";
  const mcpSection = previous.indexOf("<!-- bench:mcp start -->");
  writeFileSync(path, mcpSection < 0 ? report : `${report.trimEnd()}\n\n${previous.slice(mcpSection)}`);
}

/** `npm run bench -- --only=upload`: the verdict and upload rows with their targets, printed (BENCHMARKS.md is left as it is). */
async function uploadOnly(): Promise<void> {
  const measured = await uploadRows(githubText());
  const header = `Run ${new Date().toISOString()} on ${execFileSync("nproc", { encoding: "utf8" }).trim()} CPU(s), Node ${process.version}. Load average at start: ${loadavg().map((value) => value.toFixed(1)).join(" ")}.`;
  console.log([header, "", "| Measurement | Median | Ratio |", "| --- | ---: | --- |", ...measured.rows.map(([name, value, note]) => `| ${name} | ${value} | ${note} |`), "", ...uploadTargets(measured)].join("\n"));
}

/** `npm run bench -- --only=references`: the reference rows alone, printed (BENCHMARKS.md is left as it is). */
function referencesOnly(): void {
  const rows = referenceRows(pairedNote);
  const header = `Run ${new Date().toISOString()} on ${execFileSync("nproc", { encoding: "utf8" }).trim()} CPU(s), Node ${process.version}. Load average at start: ${loadavg().map((value) => value.toFixed(1)).join(" ")}.`;
  console.log([header, "", "| Measurement | Median | Ratio |", "| --- | ---: | --- |", ...rows.map(([name, value, note]) => `| ${name} | ${value} | ${note} |`)].join("\n"));
}

const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length) ?? process.env.BENCH_ONLY;
if (process.argv.includes("--memory-child")) memoryChild();
// One row group alone (BENCHMARKS.md untouched): --only=upload, --only=references or --only=exchanges (BENCH_ONLY=... also works).
else if (only === "upload") await uploadOnly();
else if (only === "references") referencesOnly();
else if (only === "exchanges") await exchangesOnly();
else if (only) throw new Error(`--only=${only} is not a row group: use upload, references or exchanges, or leave it out for every row`);
else await main();
