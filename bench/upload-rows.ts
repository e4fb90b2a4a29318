/**
 * The verdict and snapshot-upload measurements, written once and run in two runtimes: in Node by
 * conformance.bench.ts, and inside workerd (the runtime a deployed Worker runs in) by workerd/bench.worker.ts.
 * It imports only the Worker's own pure functions and Web APIs, so both runtimes run the very same code.
 *
 * Every measurement is paired: each round times JSON.parse of the same text just before the run, after a full
 * GC, and takes that round's ratio. A shared machine's load drifts within seconds; pairing keeps the drift out of
 * the ratio. workerd's clock advances in whole milliseconds, so the parts that take a few milliseconds are run
 * `repeat` times inside the timed part and divided.
 */
import { getConformanceConfig, loadConformanceConfig } from "../src/engine/verdict/config";
import { checkOpenApiStructure } from "../src/engine/load/document-checks";
import { checkConformance } from "../src/engine/engine";
import { findUnknownFields } from "../src/engine/load/fixed-fields";
import { indexDocument } from "../src/engine/normalize/normalize-document";
import { encodeVerdict } from "../src/engine/verdict/encode-verdict";
import { sha256Digest } from "../src/lib/sha256";
import { parseDocumentBytes } from "../src/engine/load/parse-upload";
import { decodeUtf8Strict, utf8JsonAsAscii } from "../src/lib/utf8";
import { decodeVerdictForm, encodeComparisonForm } from "../src/contracts/store/verdict-form";
import type { OpenApiDocument } from "../src/engine/types";
import { bundledPolicyFiles } from "../src/policy/files";

export interface Clock {
  now(): number;
  /** A full garbage collection (Node's and workerd's V8 both expose it with --expose-gc). */
  gc(): void;
}

export interface Paired {
  /** Median milliseconds of the measured run. */
  ms: number;
  /** Median over rounds of run / JSON.parse, each JSON.parse timed in the same round, just before the run. */
  ratio: number;
  /** The middle half of those per-round ratios. */
  low: number;
  high: number;
}

export interface UploadMeasurements {
  /** Size of the contract's comparison form. */
  formBytes: number;
  /** What the verdict found: "3041 violations: 3 missing-operation, …". */
  verdictCounts: string;
  verdictOffCount: number;
  verdictCold: Paired;
  verdictOff: Paired;
  verdictFromBareParse: Paired;
  verdictWarm: Paired;
  upload: Paired;
  uploadWithContract: Paired;
  uploadWithContractBytes: Paired;
  readForm: Paired;
  readBytes: Paired;
  decode: Paired;
  asciiForm: Paired;
  parseBytes: Paired;
  structure: Paired;
  unknownFields: Paired;
  hash: Paired;
  encoded: Paired;
  index: Paired;
}

/** What uploads run: the bundled policies/conformance.json and policies/constitution.json. */
const config = getConformanceConfig();
/** The bundled conformance.json with the constitution emptied: only for the row labelled "constitution off". */
const constitutionOff = loadConformanceConfig({ ...bundledPolicyFiles, "constitution.json": { rules: {} } });

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/**
 * The active contract's comparison form (annotations stripped), as a contract upload stores it beside the uploaded
 * bytes and its verdict form; a snapshot upload reads it as the contract side of its verdict.
 */
export function comparisonFormOf(contractBytes: Uint8Array): Uint8Array {
  const parsed = parseDocumentBytes(contractBytes);
  if (!parsed.ok) throw new Error(`the contract was refused: ${parsed.problems[0]?.message}`);
  const form = encodeComparisonForm(parsed.document, parsed.facts.format);
  if (!form) throw new Error("the contract has no comparison form");
  return form;
}

/** The active contract read back as uploadSnapshot does: its comparison form decoded (verdict-form.ts). */
export function formDocument(form: Uint8Array): OpenApiDocument {
  const document = decodeVerdictForm(form);
  if (!document) throw new Error("the verdict form does not decode");
  return document;
}

/**
 * The stored contract read back from its uploaded bytes, as loadStoredDocument does for a version stored before
 * verdict forms existed (stored documents skip the unknown-field check).
 */
export function storedDocument(bytes: Uint8Array): OpenApiDocument {
  const parsed = parseDocumentBytes(bytes, { unknownFields: "ignore" });
  if (!parsed.ok) throw new Error(`the stored contract was refused: ${parsed.problems[0]?.message}`);
  return parsed.document;
}

/**
 * A snapshot upload as store/uploads.ts uploadSnapshot runs it, with the Worker's own functions, everything but
 * the Durable Object RPCs and SQLite writes: parseDocumentBytes (UTF-8 decode, JSON.parse, structural checks with
 * the unknown-field check, every `$ref` resolved), sha256Hex (WebCrypto, the content address), then the verdict
 * with the bundled policies (constitution included) and encodeVerdict, as recordSnapshot receives it. The body
 * goes to the DOCUMENTS bucket as it is (client.ts prepareContent), so the Worker makes no copies of it. `readContract` is where uploadSnapshot reads the active contract back from storage.
 */
export async function snapshotUpload(
  bytes: Uint8Array<ArrayBuffer>,
  readContract: () => OpenApiDocument,
): Promise<number> {
  const parsed = parseDocumentBytes(bytes);
  if (!parsed.ok) throw new Error(`the snapshot was refused: ${parsed.problems[0]?.message}`);
  const hash = await sha256Digest(bytes);
  const verdict = checkConformance(readContract(), parsed.document, config);
  return hash.length + encodeVerdict(verdict).json.byteLength;
}

export class PairedTimer {
  constructor(
    private readonly clock: Clock,
    private readonly rounds: number,
  ) {}

  /**
   * `baseline` is the text JSON.parse is timed on, or a function that makes it for each round (then nothing
   * holds the text while `run` is timed). `run` is called `repeat` times inside the timed part (parts shorter
   * than the clock's step need it).
   */
  async measure<T>(
    baseline: string | (() => string),
    prepare: () => T,
    run: (input: T) => unknown,
    repeat = 1,
  ): Promise<Paired> {
    const { clock } = this;
    const runs: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < this.rounds; round++) {
      const parse = this.timeParse(typeof baseline === "string" ? baseline : baseline());
      const input = prepare();
      clock.gc();
      const start = clock.now();
      for (let time = 0; time < repeat; time++) await run(input);
      const elapsed = (clock.now() - start) / repeat;
      runs.push(elapsed);
      ratios.push(elapsed / parse);
    }
    const sorted = [...ratios].sort((a, b) => a - b);
    const quarter = Math.floor(this.rounds / 4);
    return {
      ms: median(runs),
      ratio: median(ratios),
      low: sorted[quarter] ?? NaN,
      high: sorted[this.rounds - 1 - quarter] ?? NaN,
    };
  }

  private timeParse(text: string): number {
    this.clock.gc();
    const start = this.clock.now();
    JSON.parse(text);
    return this.clock.now() - start;
  }
}

/**
 * The verdict of `snapshotText` (GitHub's mutated copy) against `contractText` (GitHub's description) and the
 * whole snapshot upload, each beside JSON.parse of the same text, and the upload's parts on their own. Verdict
 * rows pair with the contract's text, upload rows with the snapshot's.
 */
export async function measureUpload(
  contractBytes: Uint8Array<ArrayBuffer>,
  snapshotBytes: Uint8Array<ArrayBuffer>,
  rounds: number,
  clock: Clock,
): Promise<UploadMeasurements> {
  const timer = new PairedTimer(clock, rounds);
  // Only the two documents' bytes stay alive, as an upload holds its body: each text is decoded when a round needs
  // it and dropped before the timed part, and rows keep nothing alive for the next. In workerd every megabyte the
  // benchmark holds is heap pressure (and GC time inside the measured part) that an upload would not have.
  const decoder = new TextDecoder();
  const contractText = () => decoder.decode(contractBytes);
  const snapshotText = () => decoder.decode(snapshotBytes);

  // The whole upload: with the contract already parsed (as the verdict receives it), and with the contract's
  // stored bytes parsed inside the timed part too (uploadSnapshot reads it back after storing the snapshot).
  const upload = await timer.measure(
    snapshotText,
    () => storedDocument(contractBytes),
    (contract) => snapshotUpload(snapshotBytes, () => contract),
  );
  const form = comparisonFormOf(contractBytes);
  const uploadWithContract = await timer.measure(
    snapshotText,
    () => undefined,
    () => snapshotUpload(snapshotBytes, () => formDocument(form)),
  );
  const uploadWithContractBytes = await timer.measure(
    snapshotText,
    () => undefined,
    () => snapshotUpload(snapshotBytes, () => storedDocument(contractBytes)),
  );
  const readForm = await timer.measure(
    contractText,
    () => undefined,
    () => formDocument(form),
  );
  const readBytes = await timer.measure(
    contractText,
    () => undefined,
    () => storedDocument(contractBytes),
  );

  // Its parts, each on the snapshot's bytes and beside JSON.parse of the same text.
  const decode = await timer.measure(
    snapshotText,
    () => undefined,
    () => decodeUtf8Strict(snapshotBytes),
  );
  const asciiForm = await timer.measure(
    snapshotText,
    () => undefined,
    () => utf8JsonAsAscii(snapshotBytes),
  );
  const parseBytes = await timer.measure(
    snapshotText,
    () => undefined,
    () => parseDocumentBytes(snapshotBytes),
  );
  const structure = await timer.measure(
    snapshotText,
    () => JSON.parse(snapshotText()) as OpenApiDocument,
    (document) => checkOpenApiStructure(document, false, { unknownFields: "ignore" }),
  );
  const unknownFields = await timer.measure(
    snapshotText,
    () => JSON.parse(snapshotText()) as OpenApiDocument,
    (document) => findUnknownFields(document, String(document.openapi)),
    10,
  );
  const hash = await timer.measure(
    snapshotText,
    () => undefined,
    () => sha256Digest(snapshotBytes),
    5,
  );
  // Indexes are cached per document: each repetition indexes its own freshly read contract.
  const index = await timer.measure(
    contractText,
    () => Array.from({ length: 3 }, () => storedDocument(contractBytes)),
    (documents) => indexDocument(documents.pop() as OpenApiDocument),
    3,
  );

  // As uploadSnapshot hands them to the verdict: the snapshot through parseDocumentBytes (unknown-field check on),
  // the active contract read back as loadStoredDocument does; validation resolved every $ref once and the index
  // reuses those resolutions. Indexes, comparisons and every rule run inside the timed part.
  const asUploaded = () => {
    const snapshot = parseDocumentBytes(snapshotBytes);
    if (!snapshot.ok) throw new Error(`the mutated copy was refused: ${snapshot.problems[0]?.message}`);
    return [storedDocument(contractBytes), snapshot.document] as const;
  };
  const verdict = checkConformance(...asUploaded(), config);
  const verdictOffCount = checkConformance(...asUploaded(), constitutionOff).totalViolations;
  const verdictCold = await timer.measure(contractText, asUploaded, ([contract, snapshot]) =>
    checkConformance(contract, snapshot, config),
  );
  const verdictOff = await timer.measure(contractText, asUploaded, ([contract, snapshot]) =>
    checkConformance(contract, snapshot, constitutionOff),
  );
  const verdictFromBareParse = await timer.measure(
    contractText,
    () => [JSON.parse(contractText()) as OpenApiDocument, JSON.parse(snapshotText()) as OpenApiDocument] as const,
    ([contract, snapshot]) => checkConformance(contract, snapshot, config),
  );
  const verdictWarm = await (async () => {
    const [warmContract, warmSnapshot] = asUploaded();
    checkConformance(warmContract, warmSnapshot, config);
    return timer.measure(
      contractText,
      () => undefined,
      () => checkConformance(warmContract, warmSnapshot, config),
    );
  })();
  const encoded = await timer.measure(
    contractText,
    () => undefined,
    () => encodeVerdict(verdict),
    20,
  );

  const verdictCounts = `${verdict.totalViolations} violations: ${verdict.summary.map((entry) => `${entry.count} ${entry.rule}`).join(", ")}`;
  return {
    formBytes: form.byteLength,
    verdictCounts,
    verdictOffCount,
    verdictCold,
    verdictOff,
    verdictFromBareParse,
    verdictWarm,
    upload,
    uploadWithContract,
    uploadWithContractBytes,
    readForm,
    readBytes,
    decode,
    asciiForm,
    parseBytes,
    structure,
    unknownFields,
    hash,
    encoded,
    index,
  };
}

export const pairedNote = (measured: Paired, target = "") =>
  `${measured.ratio.toFixed(2)} x JSON.parse (per-round; middle half ${measured.low.toFixed(2)}-${measured.high.toFixed(2)})${target}`;

const ms = (value: number) => value.toFixed(value < 1 ? 3 : 1);

/** The table rows of one runtime's measurements; `where` names the runtime in the two target rows. */
export function uploadTableRows(measured: UploadMeasurements, where: string): [string, string, string][] {
  const m = measured;
  return [
    [
      `${where}: verdict vs mutated copy as a snapshot upload runs it: bundled policies, constitution included (${m.verdictCounts}); documents as uploadSnapshot hands them over`,
      `${ms(m.verdictCold.ms)} ms`,
      pairedNote(m.verdictCold, " (target <= 0.50)"),
    ],
    [
      `${where}: whole snapshot upload in the Worker's code path but the Durable Object RPCs: decode, parse, structural + unknown-field checks, SHA-256, the verdict above, encodeVerdict; contract already parsed`,
      `${ms(m.upload.ms)} ms`,
      pairedNote(m.upload, " of the snapshot"),
    ],
    [
      `${where}: the same upload as it really runs, with the active contract read back inside the timed part: its comparison form decoded (annotations stripped; ASCII decode + JSON.parse, no re-validation), as uploadSnapshot does`,
      `${ms(m.uploadWithContract.ms)} ms`,
      pairedNote(m.uploadWithContract, " of the snapshot (target <= 3)"),
    ],
    [
      `${where}: the same upload, the active contract's uploaded bytes parsed and validated instead (a version stored before verdict forms, or how every upload read it before)`,
      `${ms(m.uploadWithContractBytes.ms)} ms`,
      pairedNote(m.uploadWithContractBytes, " of the snapshot"),
    ],
    [
      `${where}: read back the active contract: decode its comparison form (${(m.formBytes / 1e6).toFixed(1)} MB of ASCII JSON)`,
      `${ms(m.readForm.ms)} ms`,
      pairedNote(m.readForm),
    ],
    [
      `${where}: read back the active contract: parse and validate its uploaded bytes (before)`,
      `${ms(m.readBytes.ms)} ms`,
      pairedNote(m.readBytes),
    ],
    [
      `${where}: verdict, CONSTITUTION OFF (bundled conformance.json, constitution.json emptied; not what uploads run; ${m.verdictOffCount} violations)`,
      `${ms(m.verdictOff.ms)} ms`,
      pairedNote(m.verdictOff),
    ],
    [
      `${where}: verdict with the bundled policies, cold from bare JSON.parse (every $ref resolved inside the timed part)`,
      `${ms(m.verdictFromBareParse.ms)} ms`,
      pairedNote(m.verdictFromBareParse),
    ],
    [
      `${where}: verdict with the bundled policies, warm (indexes cached)`,
      `${ms(m.verdictWarm.ms)} ms`,
      pairedNote(m.verdictWarm),
    ],
    [
      `${where}: upload part: the snapshot's text as JSON.parse reads it, its ASCII form (utf8JsonAsAscii: isUtf8, non-ASCII runs found with isAscii, a one-byte string with those runs as \\u escapes)`,
      `${ms(m.asciiForm.ms)} ms`,
      pairedNote(m.asciiForm),
    ],
    [
      `${where}: upload part: UTF-8 decode of the snapshot, as the text was made before the ASCII form and still is for YAML (decodeUtf8Strict: isUtf8, then Buffer#toString)`,
      `${ms(m.decode.ms)} ms`,
      pairedNote(m.decode),
    ],
    [
      `${where}: upload part: parseDocumentBytes of the snapshot (decode, JSON.parse, structural + unknown-field checks, $ref resolution)`,
      `${ms(m.parseBytes.ms)} ms`,
      pairedNote(m.parseBytes),
    ],
    [
      `${where}: upload part: structural checks and $ref resolution alone (checkOpenApiStructure, unknown fields ignored)`,
      `${ms(m.structure.ms)} ms`,
      pairedNote(m.structure),
    ],
    [
      `${where}: upload part: unknown-field check alone (findUnknownFields; 10 runs per round)`,
      `${ms(m.unknownFields.ms)} ms`,
      pairedNote(m.unknownFields),
    ],
    [
      `${where}: upload part: SHA-256 content address (sha256Hex, WebCrypto; 5 runs per round)`,
      `${ms(m.hash.ms)} ms`,
      pairedNote(m.hash),
    ],
    [
      `${where}: upload part: encodeVerdict of the verdict above (20 runs per round)`,
      `${ms(m.encoded.ms)} ms`,
      pairedNote(m.encoded),
    ],
    [
      `${where}: index one parsed document (operations, keys, parameters; 3 documents per round)`,
      `${ms(m.index.ms)} ms`,
      pairedNote(m.index),
    ],
  ];
}

/** The two targets of the verdict issue, as met or MISSED in one runtime. */
export function uploadTargetLines(measured: UploadMeasurements, where: string): string[] {
  const { verdictCold, verdictOff, upload, uploadWithContract } = measured;
  return [
    `- ${where}: verdict as an upload runs it (bundled policies, constitution included) at most 0.5x JSON.parse: ${verdictCold.ratio <= 0.5 ? "met" : "MISSED"} (${verdictCold.ratio.toFixed(2)}x, middle half ${verdictCold.low.toFixed(2)}-${verdictCold.high.toFixed(2)}; constitution off: ${verdictOff.ratio.toFixed(2)}x).`,
    `- ${where}: whole snapshot upload, the active contract read back included, at most 3x JSON.parse of the snapshot: ${uploadWithContract.ratio <= 3 ? "met" : "MISSED"} (${uploadWithContract.ratio.toFixed(2)}x, middle half ${uploadWithContract.low.toFixed(2)}-${uploadWithContract.high.toFixed(2)}; ${upload.ratio.toFixed(2)}x with the contract already parsed; ${measured.uploadWithContractBytes.ratio.toFixed(2)}x reading its uploaded bytes as before).`,
  ];
}
