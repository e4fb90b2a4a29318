/**
 * Content-addressed records inside the organization's Durable Object. Each content (a document, a form, a verdict
 * body) has one `blobs` row per SHA-256, naming where its bytes are: in the DOCUMENTS bucket (`r2`, bucket.ts: any
 * content over SQL_CONTENT_MAX since that bucket exists) or here as pieces of at most CHUNK_BYTES (`sql`). A document's pieces arrive in one call (the store cuts them)
 * and are written in one transaction; the `blobs` row is written last and only when every piece is present with
 * the announced total size, so a reader never sees half a document. Pieces of an upload
 * that died before completion are unreferenced and the next upload of the same bytes reuses them.
 */
import { CHUNK_BYTES } from "./schema";

export interface BlobInfo {
  hash: string;
  size: number;
  /** Pieces in blob_chunks; 0 for content in the bucket. */
  chunkCount: number;
  storedIn: "sql" | "r2";
}

export const HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** No content has more pieces: documents are at most 15 MiB, their verdict forms and verdict bodies a few times that. */
export const MAX_PIECES = 64;

export function getBlob(sql: SqlStorage, hash: string): BlobInfo | null {
  const row = sql
    .exec<{ size: number; chunk_count: number; stored_in: string }>(
      "SELECT size, chunk_count, stored_in FROM blobs WHERE hash = ?",
      hash,
    )
    .toArray()[0];
  return row
    ? { hash, size: row.size, chunkCount: row.chunk_count, storedIn: row.stored_in === "r2" ? "r2" : "sql" }
    : null;
}

/** SQLite binds whole ArrayBuffers: hand it exactly the bytes of the view. */
function exactBuffer(view: Uint8Array): ArrayBuffer {
  if (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength && view.buffer instanceof ArrayBuffer)
    return view.buffer;
  return view.slice().buffer as ArrayBuffer;
}

export function putChunk(sql: SqlStorage, hash: string, index: number, data: Uint8Array): void {
  if (!HASH_PATTERN.test(hash)) throw new RangeError("invalid content hash");
  if (!Number.isInteger(index) || index < 0 || index >= MAX_PIECES) throw new RangeError("invalid piece index");
  if (data.byteLength > CHUNK_BYTES) throw new RangeError(`a piece holds at most ${CHUNK_BYTES} bytes`);
  // Same hash and index means the same bytes: a repeated or concurrent upload of them changes nothing.
  sql.exec("INSERT OR IGNORE INTO blob_chunks (hash, idx, data) VALUES (?, ?, ?)", hash, index, exactBuffer(data));
}

/** Marks the content complete if all `chunkCount` pieces add up to `size`; false (and nothing written) otherwise. */
export function completeBlob(sql: SqlStorage, hash: string, size: number, chunkCount: number): boolean {
  if (getBlob(sql, hash)) return true;
  const row = sql
    .exec<{ pieces: number; bytes: number | null }>(
      "SELECT COUNT(*) AS pieces, SUM(length(data)) AS bytes FROM blob_chunks WHERE hash = ? AND idx < ?",
      hash,
      chunkCount,
    )
    .one();
  if (row.pieces !== chunkCount || (row.bytes ?? 0) !== size) return false;
  sql.exec(
    "INSERT INTO blobs (hash, size, chunk_count, created_at) VALUES (?, ?, ?, ?)",
    hash,
    size,
    chunkCount,
    new Date().toISOString(),
  );
  return true;
}

export function readChunk(sql: SqlStorage, hash: string, index: number): Uint8Array | null {
  if (!getBlob(sql, hash)) return null;
  const row = sql
    .exec<{ data: ArrayBuffer }>("SELECT data FROM blob_chunks WHERE hash = ? AND idx = ?", hash, index)
    .toArray()[0];
  return row ? new Uint8Array(row.data) : null;
}

/** Small blobs (verdict bodies) in one call. */
export function putSmallBlob(sql: SqlStorage, hash: string, bytes: Uint8Array): void {
  if (getBlob(sql, hash)) return;
  let index = 0;
  for (let offset = 0; offset < bytes.byteLength || index === 0; offset += CHUNK_BYTES, index++) {
    putChunk(sql, hash, index, bytes.subarray(offset, Math.min(offset + CHUNK_BYTES, bytes.byteLength)));
  }
  if (!completeBlob(sql, hash, bytes.byteLength, index)) throw new Error("blob pieces do not add up");
}

export function readSmallBlob(sql: SqlStorage, hash: string): Uint8Array | null {
  const info = getBlob(sql, hash);
  if (info?.storedIn !== "sql") return null;
  const out = new Uint8Array(info.size);
  let offset = 0;
  for (const row of sql.exec<{ data: ArrayBuffer }>(
    "SELECT data FROM blob_chunks WHERE hash = ? AND idx < ? ORDER BY idx",
    hash,
    info.chunkCount,
  )) {
    out.set(new Uint8Array(row.data), offset);
    offset += row.data.byteLength;
  }
  return out;
}

/**
 * Content as a record call hands it over: its address and size, and its only piece when it fits in one (sent
 * inline, so a small upload needs no separate piece call); larger content was sent piece by piece beforehand.
 */
export interface ContentPieces {
  hash: string;
  size: number;
  chunkCount: number;
  inline: Uint8Array | null;
  /** The bytes were written to the bucket beforehand (the store checks they are there before its transaction). */
  inBucket?: boolean;
}

/** Records content whose bytes are in the bucket (the caller checked they are, with this size). */
export function recordBucketBlob(sql: SqlStorage, hash: string, size: number): void {
  if (!HASH_PATTERN.test(hash)) throw new RangeError("invalid content hash");
  const written = sql.exec(
    "INSERT OR IGNORE INTO blobs (hash, size, chunk_count, created_at, stored_in) VALUES (?, ?, 0, ?, 'r2')",
    hash,
    size,
    new Date().toISOString(),
  ).rowsWritten;
  if (written > 0) addBucketBytes(sql, size);
}

/** The bytes this organization holds in the bucket, kept as a running total (schema-upgrade.ts starts it). */
export function bucketBytes(sql: SqlStorage): number {
  return Number(
    sql.exec<{ value: number }>("SELECT value FROM counters WHERE name = 'bucket_bytes'").toArray()[0]?.value ?? 0,
  );
}

export function addBucketBytes(sql: SqlStorage, delta: number): void {
  sql.exec(
    "INSERT INTO counters (name, value) VALUES ('bucket_bytes', ?) ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
    delta,
  );
}

/**
 * Stores the inline piece (if any) and completes the content; false when pieces are missing. Content in the
 * bucket is recorded as it is: the store checked its object before the transaction (ContractStore.checkBucket).
 */
export function completeContent(sql: SqlStorage, content: ContentPieces): boolean {
  if (getBlob(sql, content.hash)) return true;
  if (content.inBucket) {
    recordBucketBlob(sql, content.hash, content.size);
    return true;
  }
  if (content.inline) {
    if (content.chunkCount !== 1) throw new RangeError("only content of one piece is sent inline");
    putChunk(sql, content.hash, 0, content.inline);
  }
  return completeBlob(sql, content.hash, content.size, content.chunkCount);
}
