/**
 * An organization's export written into the DOCUMENTS bucket as one object, a bounded batch per invocation: the
 * archive an operator downloads with one bucket read, whatever the organization's size. The streamed export
 * (GET .../export) reads every store in the one request that downloads it, a store call per page of about 2 MiB, so
 * it meets the invocation's limits (subrequests, CPU) at some size; this job spreads the same reads over as many
 * invocations as the archive needs, and the download is a single read of the finished object.
 *
 * The archive is an R2 multipart upload under `exports/<organization>/<job id>.json`: parts of 8 MiB, more for a large
 * organization (partBytesFor; R2 wants every part but the last of one size, at least 5 MiB, and at most 10,000), the
 * text past the last whole part kept between batches in
 * an object of its own (`...<job id>.carry-<n>`, a new name each batch, so a batch that dies before its state is
 * stored leaves the previous carry as it was). A batch goes on from the archive reader's place
 * (src/contracts/services/archive.ts) and stops after about BATCH_BYTES of text or BATCH_CALLS store calls; the
 * object is completed, and so visible, only once whole.
 */
import type { Env } from "../env";
import { type ExportPlace, exportStart, nextExportPiece } from "./export-reader";

/** What the operator sees of an export (GET /operator/v1/organizations/{id}/exports). */
export interface ExportJob {
  id: string;
  status: "running" | "complete" | "failed" | "expired";
  startedAt: string;
  completedAt: string | null;
  /** When a complete archive is deleted from the bucket. */
  expiresAt: string | null;
  /** Bytes of the archive written so far: all of it once complete. */
  bytes: number;
  /** Batches run so far (each an invocation of its own). */
  batches: number;
  /** Why the last batch failed (retried a minute later; the job fails after MAX_FAILURES in a row). */
  error: string | null;
}

/** The job with what its next batch needs. */
export interface ExportWork {
  organizationId: string;
  job: ExportJob;
  key: string;
  uploadId: string;
  place: ExportPlace;
  parts: R2UploadedPart[];
  /** The size of every part but the last (partBytesFor). */
  partBytes: number;
  /** The text past the last whole part (its object's key), or null when there is none. */
  carryKey: string | null;
  carrySeq: number;
  failures: number;
}

const MIB = 1024 * 1024;
/** The smallest part: R2 wants every part but the last at least 5 MiB. */
export const PART_BYTES = 8 * MIB;
/** The largest part a batch holds in memory (with a piece being read and the part being sent). */
const MAX_PART_BYTES = 32 * MIB;
/** R2's most parts in one upload. */
const MAX_PARTS = 10_000;
/** The parts an export plans for: R2's limit less room for what the organization writes while it is exported. */
const PARTS_PLANNED = 8_000;
/** Archive text a batch reads at least (twice the part size when parts are larger), and store calls at most. */
const BATCH_BYTES = 24 * MIB;
const BATCH_CALLS = 200;
export const MAX_FAILURES = 5;
/** How long a complete archive stays in the bucket. */
export const ARCHIVE_KEEP_MS = 7 * 86_400_000;

/**
 * The part size for an archive of an organization storing `usedBytes` (its database and bucket, as its quota counts
 * them; base64 makes binary a third larger): 8 MiB, or more for an organization whose archive would need more than
 * PARTS_PLANNED parts of 8 MiB (about 50 GB stored), up to 32 MiB (about 200 GB).
 */
export function partBytesFor(usedBytes: number): number {
  const needed = Math.ceil((usedBytes * 4) / 3 / PARTS_PLANNED);
  return Math.min(MAX_PART_BYTES, Math.max(PART_BYTES, Math.ceil(needed / MIB) * MIB));
}

export function archiveKey(organizationId: string, jobId: string): string {
  return `exports/${organizationId}/${jobId}.json`;
}

/** Starts the upload; its first batch begins the archive with `organization` (as the operator's API shows it). */
export async function newExport(env: Env, organizationId: string, organization: unknown) {
  const used = await env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(organizationId)).storageUsed();
  const id = crypto.randomUUID();
  const key = archiveKey(organizationId, id);
  const upload = await env.DOCUMENTS.createMultipartUpload(key, {
    httpMetadata: { contentType: "application/json; charset=utf-8" },
  });
  const work: ExportWork = {
    organizationId,
    job: {
      id,
      status: "running",
      startedAt: new Date().toISOString(),
      completedAt: null,
      expiresAt: null,
      bytes: 0,
      batches: 0,
      error: null,
    },
    key,
    uploadId: upload.uploadId,
    place: exportStart(organization),
    parts: [],
    partBytes: partBytesFor(used.databaseBytes + used.bucketBytes),
    carryKey: null,
    carrySeq: 0,
    failures: 0,
  };
  return work;
}

/** Text gathered for the upload: whole parts leave as soon as there is one. */
class PartBuffer {
  private chunks: Uint8Array[] = [];
  private size = 0;

  constructor(
    private readonly upload: R2MultipartUpload,
    private readonly parts: R2UploadedPart[],
    private readonly partBytes: number,
  ) {}

  get buffered(): number {
    return this.size;
  }

  async push(bytes: Uint8Array): Promise<void> {
    this.chunks.push(bytes);
    this.size += bytes.byteLength;
    while (this.size >= this.partBytes) await this.send(this.partBytes);
  }

  /** Uploads the first `length` bytes buffered as the next part. */
  async send(length: number): Promise<void> {
    if (this.parts.length >= MAX_PARTS)
      throw new Error(
        `the archive outgrew R2's ${MAX_PARTS} parts of ${this.partBytes / MIB} MiB; the organization grew while it was exported`,
      );
    const all = this.take();
    const part = await this.upload.uploadPart(this.parts.length + 1, all.subarray(0, length));
    this.parts.push({ partNumber: part.partNumber, etag: part.etag });
    this.chunks = all.byteLength > length ? [all.slice(length)] : [];
    this.size = all.byteLength - length;
  }

  /** Everything buffered, as one array (the buffer then holds only it). */
  take(): Uint8Array {
    if (this.chunks.length === 1 && this.chunks[0]) return this.chunks[0];
    const all = new Uint8Array(this.size);
    let at = 0;
    for (const chunk of this.chunks) {
      all.set(chunk, at);
      at += chunk.byteLength;
    }
    this.chunks = [all];
    return all;
  }
}

/**
 * One batch: the carry, then archive pieces until the batch's bounds, whole parts uploaded as they fill; the last
 * batch uploads the rest and completes the object. Answers the work after it (the caller stores it). Throws when the
 * bucket or a store fails: the stored work is then the one before the batch, and the batch is run again from it.
 */
export async function exportBatch(env: Env, work: ExportWork): Promise<ExportWork> {
  const upload = env.DOCUMENTS.resumeMultipartUpload(work.key, work.uploadId);
  const parts = [...work.parts];
  const buffer = new PartBuffer(upload, parts, work.partBytes);
  const encoder = new TextEncoder();
  if (work.carryKey) {
    const carry = await env.DOCUMENTS.get(work.carryKey);
    if (!carry) throw new Error(`the export's carried text ${work.carryKey} is missing from the bucket`);
    await buffer.push(new Uint8Array(await carry.arrayBuffer()));
  }
  let place = work.place;
  let read = 0;
  let done = false;
  const batchBytes = Math.max(BATCH_BYTES, 2 * work.partBytes);
  for (let calls = 0; calls < BATCH_CALLS && read < batchBytes; calls++) {
    const piece = await nextExportPiece(env, work.organizationId, place);
    if (!piece) {
      done = true;
      break;
    }
    const bytes = encoder.encode(piece.text);
    read += bytes.byteLength;
    place = piece.place;
    await buffer.push(bytes);
  }
  const batches = work.job.batches + 1;
  if (done) {
    if (buffer.buffered > 0 || parts.length === 0) await buffer.send(buffer.buffered);
    const object = await upload.complete(parts);
    if (work.carryKey) await env.DOCUMENTS.delete(work.carryKey);
    const completed = Date.now();
    return {
      ...work,
      place,
      parts,
      carryKey: null,
      failures: 0,
      job: {
        ...work.job,
        status: "complete",
        completedAt: new Date(completed).toISOString(),
        expiresAt: new Date(completed + ARCHIVE_KEEP_MS).toISOString(),
        bytes: object.size,
        batches,
        error: null,
      },
    };
  }
  const carrySeq = work.carrySeq + 1;
  const carryKey = buffer.buffered > 0 ? `${work.key}.carry-${carrySeq}` : null;
  if (carryKey) await env.DOCUMENTS.put(carryKey, buffer.take());
  if (work.carryKey) await env.DOCUMENTS.delete(work.carryKey);
  const bytes = parts.length * work.partBytes + buffer.buffered;
  return {
    ...work,
    place,
    parts,
    carryKey,
    carrySeq,
    failures: 0,
    job: { ...work.job, bytes, batches, error: null },
  };
}

/**
 * Deletes what a job keeps in the bucket: its archive, an upload not completed, and every carried text (the one its
 * state names, and one a batch wrote before it died, which its state never named).
 */
export async function deleteExportObjects(env: Pick<Env, "DOCUMENTS">, work: ExportWork): Promise<void> {
  if (work.job.status === "running" || work.job.status === "failed")
    await env.DOCUMENTS.resumeMultipartUpload(work.key, work.uploadId)
      .abort()
      .catch(() => undefined);
  const carries = await env.DOCUMENTS.list({ prefix: `${work.key}.carry-` });
  await env.DOCUMENTS.delete([work.key, ...carries.objects.map((object) => object.key)]);
}
