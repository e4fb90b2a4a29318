// How a large document reaches the store (src/contracts/store/client.ts sendPieces -> ContractStore.putDocumentContent):
// the whole buffer in one call, cut by the store into pieces of CHUNK_BYTES and written in one transaction, so a
// call that fails part-way leaves none of its pieces behind. The failing calls run on the object itself
// (runInDurableObject): a refused RPC would also be reported as the object's uncaught error.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_PIECES } from "../../../src/contracts/store/blob-table";
import { CHUNK_BYTES, PIECES_PER_WRITE } from "../../../src/contracts/store/schema";
import type { Env as WorkerEnv } from "../../../src/env";
import type { ContractStoreRpc } from "../../../src/contracts/store/rpc";

function store() {
  const bindings = env as unknown as WorkerEnv;
  return bindings.CONTRACT_STORE.get(bindings.CONTRACT_STORE.idFromName("acme"));
}

const piecesOf = (hash: string) =>
  runInDurableObject(store(), (_instance, state) =>
    state.storage.sql
      .exec<{ idx: number; size: number; first: number }>(
        "SELECT idx, length(data) AS size, unicode(substr(CAST(data AS TEXT), 1, 1)) AS first FROM blob_chunks WHERE hash = ? ORDER BY idx",
        hash,
      )
      .toArray(),
  );

/** `pieces` pieces' worth of bytes (the last one `lastBytes` long), each piece filled with its own letter. */
function content(pieces: number, lastBytes = CHUNK_BYTES): Uint8Array {
  const bytes = new Uint8Array((pieces - 1) * CHUNK_BYTES + lastBytes);
  for (let piece = 0; piece < pieces; piece++)
    bytes.fill(0x61 + piece, piece * CHUNK_BYTES, Math.min((piece + 1) * CHUNK_BYTES, bytes.byteLength));
  return bytes;
}

describe("piece writes", () => {
  it("cuts one buffer into pieces of CHUNK_BYTES from the first index given", async () => {
    const hash = `sha256:${"a".repeat(64)}`;
    await store().putDocumentContent(hash, 2, content(4, 1000));
    expect(await piecesOf(hash)).toEqual([
      { idx: 2, size: CHUNK_BYTES, first: 0x61 },
      { idx: 3, size: CHUNK_BYTES, first: 0x62 },
      { idx: 4, size: CHUNK_BYTES, first: 0x63 },
      { idx: 5, size: 1000, first: 0x64 },
    ]);
  });

  it("leaves none of a call's pieces when one of them cannot be written", async () => {
    const hash = `sha256:${"b".repeat(64)}`;
    // The first two pieces are valid; the third's index is past MAX_PIECES and fails inside the transaction.
    await runInDurableObject(store(), (instance) =>
      expect(() =>
        (instance as unknown as ContractStoreRpc).putDocumentContent(hash, MAX_PIECES - 2, content(3)),
      ).toThrow("invalid piece index"),
    );
    expect(await piecesOf(hash)).toEqual([]);
  });

  it(`refuses more than ${PIECES_PER_WRITE} pieces in one call and writes nothing`, async () => {
    const hash = `sha256:${"c".repeat(64)}`;
    await runInDurableObject(store(), (instance) =>
      expect(() =>
        (instance as unknown as ContractStoreRpc).putDocumentContent(hash, 0, content(PIECES_PER_WRITE + 1, 1)),
      ).toThrow(`at most ${PIECES_PER_WRITE} pieces per call`),
    );
    expect(await piecesOf(hash)).toEqual([]);
  });
});
