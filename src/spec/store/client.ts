/**
 * Typed access to an organization's ContractStore, shared by the REST API and the MCP tools. Every function
 * takes the organization id from the caller's verified principal: nothing here accepts it from a URL or a
 * body. Large documents move in pieces of CHUNK_BYTES, one RPC each, so neither the Worker nor the object
 * holds an extra copy of a 13 MB document.
 */
import type { Env } from "../../env";
import type { Verdict } from "../../engine/types";
import type { ContractStoreRpc } from "./rpc";
import { sha256Hex } from "./hash";
import { CHUNK_BYTES } from "./schema";

export type ContractStoreStub = DurableObjectStub<ContractStoreRpc>;

export function contractStore(env: Env, organizationId: string): ContractStoreStub {
  return env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(organizationId));
}

export interface StoredContent {
  hash: string;
  size: number;
  chunkCount: number;
  /** True when the same bytes were already stored (nothing was transferred). */
  reused: boolean;
}

/** Stores `bytes` content-addressed (sha-256). Idempotent; the same bytes are stored once per organization. */
export async function storeContent(env: Env, organizationId: string, bytes: Uint8Array): Promise<StoredContent> {
  const store = contractStore(env, organizationId);
  const hash = await sha256Hex(bytes);
  const chunkCount = Math.max(1, Math.ceil(bytes.byteLength / CHUNK_BYTES));
  if (await store.blobInfo(hash)) return { hash, size: bytes.byteLength, chunkCount, reused: true };
  for (let index = 0; index < chunkCount; index++) {
    // slice(): an RPC argument that is a view would carry its whole underlying buffer.
    const piece = bytes.slice(index * CHUNK_BYTES, Math.min((index + 1) * CHUNK_BYTES, bytes.byteLength));
    await store.putDocumentPiece(hash, index, piece);
  }
  if (!(await store.completeDocument(hash, bytes.byteLength, chunkCount))) throw new Error("stored pieces do not add up to the document");
  return { hash, size: bytes.byteLength, chunkCount, reused: false };
}

/** The stored bytes of a document, in one buffer (null when no such content is stored). */
export async function readContent(env: Env, organizationId: string, hash: string): Promise<Uint8Array | null> {
  const store = contractStore(env, organizationId);
  const info = await store.blobInfo(hash);
  if (!info) return null;
  const out = new Uint8Array(info.size);
  let offset = 0;
  for (let index = 0; index < info.chunkCount; index++) {
    const piece = await store.readDocumentPiece(hash, index);
    if (!piece) return null;
    out.set(piece, offset);
    offset += piece.byteLength;
  }
  return out;
}

/** The stored document as UTF-8 text (documents are validated as UTF-8 at upload). */
export async function readContentText(env: Env, organizationId: string, hash: string): Promise<string | null> {
  const bytes = await readContent(env, organizationId, hash);
  return bytes ? new TextDecoder().decode(bytes) : null;
}

/** Streams the stored bytes piece by piece, for downloads. */
export async function streamContent(env: Env, organizationId: string, hash: string): Promise<{ size: number; body: ReadableStream<Uint8Array> } | null> {
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

