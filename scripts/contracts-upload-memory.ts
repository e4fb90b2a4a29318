/**
 * Memory of the snapshot upload path, measured in Node on the Worker's own code (src/contracts/services/uploads.ts
 * parseDocumentBytes, src/contracts/store/verdict-form.ts and the conformance engine), in the order uploadSnapshot runs it:
 *   body bytes -> decode + parse (text freed) -> the bytes sent to the store in one call (the call's message is one
 *   copy of them until it is sent) while the contract's comparison form is read back -> bytes released -> form
 *   decoded -> checkConformance -> verdict JSON.
 * `--read=bytes` measures the read-back of a contract stored without forms (its uploaded bytes parsed and
 * validated again, as every upload did before forms existed) for comparison; `--read=verdict-form` of one stored
 * with a verdict form but no comparison form (every version uploaded before comparison forms).
 * Workers give an isolate 128 MB (JavaScript heap plus ArrayBuffers). For each document this prints the live
 * heap + ArrayBuffer bytes at every step (after a GC, so it is what the step keeps alive), then finds by
 * bisection the smallest `--max-old-space-size` with which the whole path completes in a child Node: that
 * bound includes the transient peaks (the decoded text during parsing) that the checkpoints miss. ArrayBuffers
 * (the body, at most one document's bytes) come on top of it.
 *
 *   npx node --experimental-transform-types --import ./bench/ts-resolve.mjs --expose-gc scripts/contracts-upload-memory.ts
 *
 * Extra arguments: sizes in MB for synthetic documents (GitHub's description with its paths repeated under
 * /copyN prefixes), e.g. `16 20`.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { getConformanceConfig } from "../src/engine/verdict/config";
import { checkConformance } from "../src/engine/engine";
import { parseDocumentBytes } from "../src/engine/load/parse-upload";
import { decodeVerdictForm, encodeComparisonForm, encodeVerdictForm } from "../src/contracts/store/verdict-form";

const readBytes = process.argv.includes("--read=bytes");
const readVerdictForm = process.argv.includes("--read=verdict-form");

const REPO = resolve(import.meta.dirname, "..");
const GITHUB = resolve(REPO, "node_modules/@octokit/openapi/generated/api.github.com.json");
const MB = 1024 * 1024;

const gc = (globalThis as { gc?: () => void }).gc;
function live(): number {
  gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

function synthetic(targetMb: number): Uint8Array {
  const document = JSON.parse(readFileSync(GITHUB, "utf8")) as { paths: Record<string, unknown> };
  const original = Object.entries(document.paths).map(
    ([path, item]) => [path, item, Buffer.byteLength(JSON.stringify(item)) + path.length + 12] as const,
  );
  let size = Buffer.byteLength(JSON.stringify(document));
  for (let copy = 1; size < targetMb * MB; copy++) {
    for (const [path, item, bytes] of original) {
      if (size >= targetMb * MB) break;
      document.paths[`/copy${copy}${path}`] = item;
      size += bytes;
    }
  }
  return new TextEncoder().encode(JSON.stringify(document));
}

/** One snapshot upload where the contract is the same document (the heaviest case: two full documents). */
function uploadPath(
  source: { bytes?: Uint8Array },
  steps: Array<[string, number]> | undefined,
  readBack: () => Uint8Array,
): number {
  const mark = (step: string) => steps?.push([step, live()]);
  mark("body bytes held");
  const parsed = parseDocumentBytes(source.bytes!);
  if (!parsed.ok) throw new Error(`document refused: ${parsed.problems[0]?.message}`);
  mark("snapshot parsed (text freed)");
  // One call with the whole body: its message (a copy of the bytes) is alive while the contract comes back.
  const inFlight: Uint8Array[] = [source.bytes!.slice()];
  const contractBytes = readBack();
  mark("pieces in flight; contract read back");
  inFlight.length = 0;
  source.bytes = undefined;
  mark("bytes stored and released");
  const contractDocument = readBytes
    ? parseDocumentBytes(contractBytes, { unknownFields: "ignore" })
    : { ok: true as const, document: decodeVerdictForm(contractBytes)! };
  if (!contractDocument.ok || !contractDocument.document) throw new Error("contract refused");
  mark(readBytes ? "contract parsed from its bytes" : "contract decoded from its form");
  const verdict = checkConformance(contractDocument.document, parsed.document, getConformanceConfig());
  mark("verdict computed");
  const body = new TextEncoder().encode(JSON.stringify(verdict));
  mark("verdict serialised");
  return verdict.totalViolations + body.byteLength * 0;
}

/**
 * What the store hands back for the active contract: the comparison form (or with --read=verdict-form the verdict form) its upload wrote (made once by the parent
 * and kept in a file, so making it is not part of the measured upload), or, with --read=bytes, the uploaded bytes.
 */
const formFile = (name: string) => resolve(tmpdir(), `arbiter-upload-memory-form-${name}.json`);

function writeForm(name: string, bytes: Uint8Array): void {
  const parsed = parseDocumentBytes(bytes);
  if (!parsed.ok) throw new Error("document refused");
  writeFileSync(
    formFile(name),
    (readVerdictForm ? encodeVerdictForm : encodeComparisonForm)(parsed.document, parsed.facts.format)!,
  );
}

function readStored(name: string): Uint8Array {
  if (readBytes) return name === "github" ? new Uint8Array(readFileSync(GITHUB)) : synthetic(Number(name));
  return new Uint8Array(readFileSync(formFile(name)));
}

function completes(name: string, heapMb: number): boolean {
  try {
    execFileSync(
      process.execPath,
      [
        `--max-old-space-size=${heapMb}`,
        "--experimental-transform-types",
        "--no-warnings",
        "--import",
        "./bench/ts-resolve.mjs",
        "scripts/contracts-upload-memory.ts",
        "--child",
        name,
        ...(readBytes ? ["--read=bytes"] : []),
        ...(readVerdictForm ? ["--read=verdict-form"] : []),
      ],
      { cwd: REPO, stdio: "pipe" },
    );
    return true;
  } catch {
    return false;
  }
}

/** Bisection over 16..256 MB, to 4 MB. */
function smallestHeap(name: string): string {
  let low = 16;
  let high = 256;
  if (!completes(name, high)) return `> ${high}`;
  while (high - low > 4) {
    const middle = Math.round((low + high) / 2);
    if (completes(name, middle)) high = middle;
    else low = middle;
  }
  return String(high);
}

async function main(): Promise<void> {
  const [mode, arg] = process.argv.slice(2);
  if (mode === "--child") {
    const bytes = arg === "github" ? new Uint8Array(readFileSync(GITHUB)) : synthetic(Number(arg));
    uploadPath({ bytes }, undefined, () => readStored(arg!));
    console.log("ok");
    return;
  }
  const cases = ["github", ...process.argv.slice(2).filter((arg) => !arg.startsWith("--"))];
  console.log(
    `Node ${process.version}; the active contract read back from ${readBytes ? "its uploaded bytes (no forms)" : readVerdictForm ? "its verdict form" : "its comparison form"}; sizes are live JS heap + ArrayBuffers after GC (MB)\n`,
  );
  for (const name of cases) {
    const baseline = live();
    const holder: { bytes?: Uint8Array } = {
      bytes: name === "github" ? new Uint8Array(readFileSync(GITHUB)) : synthetic(Number(name)),
    };
    const size = holder.bytes!.byteLength;
    writeForm(name, holder.bytes!);
    const steps: Array<[string, number]> = [];
    uploadPath(holder, steps, () => readStored(name));
    const peak = Math.max(...steps.map(([, value]) => value)) - baseline;
    console.log(
      `${name === "github" ? "api.github.com.json" : `synthetic ${name} MB`}: ${(size / MB).toFixed(1)} MiB document`,
    );
    for (const [step, value] of steps)
      console.log(`  ${step.padEnd(40)} ${((value - baseline) / MB).toFixed(1).padStart(7)}`);
    console.log(`  largest checkpoint: ${(peak / MB).toFixed(1)} MB`);
    console.log(`  smallest --max-old-space-size that completes: ${smallestHeap(name)} MB\n`);
  }
}

await main();
