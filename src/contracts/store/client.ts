/**
 * Typed access to an organization's ContractStore, shared by the REST API and the MCP tools. Every function
 * takes the organization id from the caller's verified principal: nothing here accepts it from a URL or a
 * body. A document of more than SQL_CONTENT_MAX goes to the DOCUMENTS bucket and is read back from it (bucket.ts);
 * a smaller one travels inside the call that needs it. Content a store kept in SQLite pieces before the bucket
 * existed comes back a few pieces per call.
 */
import type { Env } from "../../env";
import type { Verdict } from "../../engine";
import type { ContractStoreRpc } from "./rpc";
import { tracedStub } from "../../telemetry/stub";
import type { BlobInfo, ContentPieces } from "./blob-table";
import { putBucketContent, readBucketContent, SQL_CONTENT_MAX, streamBucketContent } from "./bucket";
import { CHUNK_BYTES, PIECES_PER_CALL } from "./schema";

export type ContractStoreStub = DurableObjectStub<ContractStoreRpc>;

export function contractStore(env: Env, organizationId: string): ContractStoreStub {
  return tracedStub(env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(organizationId)), "ContractStore");
}

/**
 * Reads of PIECES_PER_CALL pieces, CALLS_IN_FLIGHT at once: each call holds its pieces (4 MiB) on this side until
 * it is answered, so the Worker holds at most 8 MiB extra while the calls overlap.
 */
const CALLS_IN_FLIGHT = 2;

async function eachBatch(chunkCount: number, run: (first: number, count: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < chunkCount) {
      const first = next;
      next = Math.min(chunkCount, next + PIECES_PER_CALL);
      await run(first, next - first);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CALLS_IN_FLIGHT, Math.ceil(chunkCount / PIECES_PER_CALL)) }, lane));
}

/**
 * Gets `bytes` ready for a record call that completes them: content of at most SQL_CONTENT_MAX travels inline with
 * that call (no call here at all) and is stored in SQLite beside its record; larger content is written to the
 * bucket now, before the record that names it, unless the store already holds it (bucket.ts).
 */
export async function prepareContent(
  env: Env,
  organizationId: string,
  store: ContractStoreStub,
  bytes: Uint8Array,
  hash: string,
): Promise<{ pieces: ContentPieces; reused: boolean | null }> {
  if (bytes.byteLength <= SQL_CONTENT_MAX)
    return { pieces: { hash, size: bytes.byteLength, chunkCount: 1, inline: bytes.slice() }, reused: null };
  const pieces = { hash, size: bytes.byteLength, chunkCount: 0, inline: null, inBucket: true };
  if (await store.blobInfo(hash)) return { pieces, reused: true };
  await putBucketContent(env, organizationId, hash, bytes);
  return { pieces, reused: false };
}

/** Where a stored content's bytes are read from: its organization's store, and the bucket for large content. */
export interface ContentPlace {
  env: Env;
  organizationId: string;
  store: ContractStoreStub;
}

/**
 * The bytes of stored content in one buffer: from the bucket, or its SQLite pieces read several at a time (null
 * when the content or a piece is missing).
 */
export async function readPieces(
  place: ContentPlace,
  info: BlobInfo & { inline?: Uint8Array | null },
): Promise<Uint8Array | null> {
  if (info.inline) return info.inline;
  if (info.storedIn === "r2") {
    const bytes = await readBucketContent(place.env, place.organizationId, info.hash);
    return bytes?.byteLength === info.size ? bytes : null;
  }
  const { store } = place;
  const out = new Uint8Array(info.size);
  let complete = true;
  await eachBatch(info.chunkCount, async (first, count) => {
    const pieces = await store.readDocumentPieces(info.hash, first, count);
    if (!pieces) complete = false;
    pieces?.forEach((piece, offset) => {
      const at = (first + offset) * CHUNK_BYTES;
      if (at + piece.byteLength > info.size) complete = false;
      else out.set(piece, at);
    });
  });
  return complete ? out : null;
}

/** The stored bytes of a document, in one buffer (null when no such content is stored). */
export async function readContent(env: Env, organizationId: string, hash: string): Promise<Uint8Array | null> {
  const store = contractStore(env, organizationId);
  const info = await store.blobInfo(hash);
  return info ? readPieces({ env, organizationId, store }, info) : null;
}

/** The stored document as UTF-8 text (documents are validated as UTF-8 at upload). */
export async function readContentText(env: Env, organizationId: string, hash: string): Promise<string | null> {
  const bytes = await readContent(env, organizationId, hash);
  return bytes ? new TextDecoder().decode(bytes) : null;
}

/** Streams the stored bytes piece by piece, for downloads. */
export async function streamContent(
  env: Env,
  organizationId: string,
  hash: string,
): Promise<{ size: number; body: ReadableStream<Uint8Array> } | null> {
  const store = contractStore(env, organizationId);
  const info = await store.blobInfo(hash);
  if (!info) return null;
  if (info.storedIn === "r2") return streamBucketContent(env, organizationId, hash);
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index >= info.chunkCount) {
        controller.close();
        return;
      }
      const piece = await store.readDocumentPiece(hash, index++);
      if (!piece) controller.error(new Error("stored content is incomplete"));
      else controller.enqueue(piece);
    },
  });
  return { size: info.size, body };
}

/** The body of a stored verdict. */
export async function readVerdictBody(env: Env, organizationId: string, verdictHash: string): Promise<Verdict | null> {
  const bytes = await contractStore(env, organizationId).readVerdictBody(verdictHash);
  return bytes ? (JSON.parse(new TextDecoder().decode(bytes)) as Verdict) : null;
}
