/**
 * Memory of the snapshot upload path, measured in Node on the Worker's own code (src/spec/services/uploads.ts
 * parseDocumentBytes and the conformance engine), in the order uploadSnapshot runs it:
 *   body bytes -> decode + parse (text freed) -> 1 MiB pieces sent one at a time -> bytes released ->
 *   contract bytes read back -> parse -> checkConformance -> verdict JSON.
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
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { getConformanceConfig } from "../src/engine/config";
import { checkConformance } from "../src/engine/engine";
import { CHUNK_BYTES } from "../src/spec/store/schema";
import { parseDocumentBytes } from "../src/engine/parse-upload";

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
  const original = Object.entries(document.paths).map(([path, item]) => [path, item, Buffer.byteLength(JSON.stringify(item)) + path.length + 12] as const);
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
function uploadPath(source: { bytes?: Uint8Array }, steps: Array<[string, number]> | undefined): number {
  const mark = (step: string) => steps?.push([step, live()]);
  mark("body bytes held");
  const parsed = parseDocumentBytes(source.bytes!);
  if (!parsed.ok) throw new Error(`document refused: ${parsed.problems[0]?.message}`);
  mark("snapshot parsed (text freed)");
  for (let offset = 0; offset < source.bytes!.byteLength; offset += CHUNK_BYTES) source.bytes!.slice(offset, offset + CHUNK_BYTES);
  const contractBytes = source.bytes!.slice();
  source.bytes = undefined;
  mark("bytes stored; contract bytes read back");
  const contract = parseDocumentBytes(contractBytes);
  if (!contract.ok) throw new Error("contract refused");
  mark("contract parsed");
  const verdict = checkConformance(contract.document, parsed.document, getConformanceConfig());
  mark("verdict computed");
  const body = new TextEncoder().encode(JSON.stringify(verdict));
  mark("verdict serialised");
  return verdict.totalViolations + body.byteLength * 0;
}

function completes(name: string, heapMb: number): boolean {
  try {
    execFileSync(process.execPath, [`--max-old-space-size=${heapMb}`, "--experimental-transform-types", "--no-warnings", "--import", "./bench/ts-resolve.mjs", "scripts/contracts-upload-memory.ts", "--child", name], { cwd: REPO, stdio: "pipe" });
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
    uploadPath({ bytes }, undefined);
    console.log("ok");
    return;
  }
  const cases = ["github", ...process.argv.slice(2)];
  console.log(`Node ${process.version}; sizes are live JS heap + ArrayBuffers after GC (MB)\n`);
  for (const name of cases) {
    const baseline = live();
    const holder: { bytes?: Uint8Array } = { bytes: name === "github" ? new Uint8Array(readFileSync(GITHUB)) : synthetic(Number(name)) };
    const size = holder.bytes!.byteLength;
    const steps: Array<[string, number]> = [];
    uploadPath(holder, steps);
    const peak = Math.max(...steps.map(([, value]) => value)) - baseline;
    console.log(`${name === "github" ? "api.github.com.json" : `synthetic ${name} MB`}: ${(size / MB).toFixed(1)} MiB document`);
    for (const [step, value] of steps) console.log(`  ${step.padEnd(40)} ${((value - baseline) / MB).toFixed(1).padStart(7)}`);
    console.log(`  largest checkpoint: ${(peak / MB).toFixed(1)} MB`);
    console.log(`  smallest --max-old-space-size that completes: ${smallestHeap(name)} MB\n`);
  }
}

await main();
