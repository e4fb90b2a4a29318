/**
 * Typed access to an organization's ContractStore, shared by the REST API and the MCP tools. Every function
 * takes the organization id from the caller's verified principal: nothing here accepts it from a URL or a
 * body. A large document goes to the store in one call (the store cuts it into pieces of CHUNK_BYTES) and comes
 * back a few pieces per call; a document of one piece travels inside the call that needs it.
 */
import type { Env } from "../../env";
import type { Verdict } from "../../engine/types";
import type { ContractStoreRpc } from "./rpc";
import { tracedStub } from "../../telemetry/stub";
import { sha256Digest } from "../../lib/sha256";
import type { BlobInfo, ContentPieces } from "./blob-table";
import { CHUNK_BYTES, PIECES_PER_CALL, PIECES_PER_WRITE } from "./schema";

export type ContractStoreStub = DurableObjectStub<ContractStoreRpc>;

export function contractStore(env: Env, organizationId: string): ContractStoreStub {
  return tracedStub(env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(organizationId)), "ContractStore");
}

export interface StoredContent {
  hash: string;
  size: number;
  chunkCount: number;
  /** True when the same bytes were already stored (nothing was transferred). */
  reused: boolean;
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

const chunkCountOf = (size: number) => Math.max(1, Math.ceil(size / CHUNK_BYTES));

/**
 * Sends every piece of `bytes` (not the completion: the record call completes the content in its transaction), in
 * one call for any uploaded document: the store cuts the pieces and writes them in one transaction, so a failed
 * call leaves none of them, and the buffer goes as it is (no copy per piece here). Before, four pieces per call
 * with two calls in flight took 45 to 70 ms for a 13 MB snapshot (a sliced copy of every piece, four commits).
 */
async function sendPieces(store: ContractStoreStub, hash: string, bytes: Uint8Array): Promise<void> {
  const step = PIECES_PER_WRITE * CHUNK_BYTES;
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.byteLength <= step)
    return store.putDocumentContent(hash, 0, bytes);
  // slice(): an RPC argument that is a view would carry its whole underlying buffer.
  for (let offset = 0; offset < bytes.byteLength; offset += step)
    await store.putDocumentContent(
      hash,
      offset / CHUNK_BYTES,
      bytes.slice(offset, Math.min(offset + step, bytes.byteLength)),
    );
}

/**
 * Gets `bytes` ready for a record call that completes them: content of one piece travels inline with that call
 * (no call here at all); larger content is sent piece by piece now, unless the store already holds it.
 */
export async function prepareContent(
  store: ContractStoreStub,
  bytes: Uint8Array,
  hash: string,
): Promise<{ pieces: ContentPieces; reused: boolean | null }> {
  const chunkCount = chunkCountOf(bytes.byteLength);
  if (chunkCount === 1)
    return { pieces: { hash, size: bytes.byteLength, chunkCount, inline: bytes.slice() }, reused: null };
  const pieces = { hash, size: bytes.byteLength, chunkCount, inline: null };
  if (await store.blobInfo(hash)) return { pieces, reused: true };
  await sendPieces(store, hash, bytes);
  return { pieces, reused: false };
}

/** Stores `bytes` content-addressed (sha-256). Idempotent; the same bytes are stored once per organization. */
export async function storeContent(env: Env, organizationId: string, bytes: Uint8Array): Promise<StoredContent> {
  const store = contractStore(env, organizationId);
  const hash = await sha256Digest(bytes);
  const chunkCount = chunkCountOf(bytes.byteLength);
  if (await store.blobInfo(hash)) return { hash, size: bytes.byteLength, chunkCount, reused: true };
  await sendPieces(store, hash, bytes);
  if (!(await store.completeDocument(hash, bytes.byteLength, chunkCount)))
    throw new Error("stored pieces do not add up to the document");
  return { hash, size: bytes.byteLength, chunkCount, reused: false };
}

/** The bytes of stored content in one buffer, its pieces read several at a time (null when a piece is missing). */
export async function readPieces(
  store: ContractStoreStub,
  info: BlobInfo & { inline?: Uint8Array | null },
): Promise<Uint8Array | null> {
  if (info.inline) return info.inline;
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
  return info ? readPieces(store, info) : null;
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
