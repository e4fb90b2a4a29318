/**
 * Typed access to the ContractStores, shared by the REST API, the MCP tools and the console. Every function takes
 * the organization id from the caller's verified principal: nothing here accepts it from a URL or a body. The
 * organization's store (contractStore) answers for the organization: its projects list, CI keys, default projects,
 * subscribers and storage; a project's records are in the store projectPlace finds (its own, or the organization's
 * for a project created before the split: project-homes.ts). A document of more than SQL_CONTENT_MAX goes to the
 * DOCUMENTS bucket under that store's space and is read back from it (bucket.ts); a smaller one travels inside the
 * call that needs it. Content a store kept in SQLite pieces before the bucket existed comes back a few pieces per call.
 */
import type { Env } from "../../env";
import type { Verdict } from "../../engine";
import type { ContractStoreRpc } from "./rpc";
import { tracedStub } from "../../telemetry/stub";
import type { BlobInfo, ContentPieces } from "./blob-table";
import {
  organizationSpace,
  projectSpace,
  putBucketContent,
  readBucketContent,
  SQL_CONTENT_MAX,
  streamBucketContent,
} from "./bucket";
import { type ProjectHome, projectStoreName } from "./project-homes";
import { CHUNK_BYTES, PIECES_PER_CALL } from "./schema";

export type ContractStoreStub = DurableObjectStub<ContractStoreRpc>;

/** What the organization's store answers for the whole organization; a project's records are asked of its place. */
type OrganizationMethod =
  | "purgeOrganization"
  | "exportTableNames"
  | "exportRows"
  | "exportContentAfter"
  | "ownProjectNames"
  | "runRetentionNow"
  | "storageUsage"
  | "storageUsed"
  | "listProjects"
  | "projectNamesNear"
  | "projectCounts"
  | "projectHome"
  | "createKey"
  | "getKey"
  | "keyForValidation"
  | "listKeys"
  | "keyCounts"
  | "keyNames"
  | "revokeKey"
  | "subscribe"
  | "unsubscribe"
  | "unsubscribeAll"
  | "subscribers"
  | "forgetSession"
  | "defaultProject"
  | "setDefaultProject";

export type OrganizationStore = Pick<ContractStoreStub, OrganizationMethod>;

/** The organization's own store: the organization's records and its directory of projects. */
export function contractStore(env: Env, organizationId: string): OrganizationStore {
  return tracedStub(env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(organizationId)), "ContractStore");
}

/** Where a project's records and content are: the store to call, and that store's bucket space. */
export interface ProjectPlace {
  env: Env;
  organizationId: string;
  project: string;
  home: ProjectHome;
  store: ContractStoreStub;
  space: string;
}

/**
 * Projects known to live in their own store. A project never leaves its own store, so the answer is kept for the
 * isolate's life (bounded); a project created before the split is asked about every time.
 */
const OWN_HOMES = new Set<string>();
const OWN_HOMES_KEPT = 10_000;

/** Forgets what is known of where projects live: for tests that rewind a project into its organization's store. */
export function forgetProjectHomes(): void {
  OWN_HOMES.clear();
}

/** The store holding a project's records: one call to the organization's store, none once a project is known. */
export async function projectPlace(env: Env, organizationId: string, project: string): Promise<ProjectPlace> {
  const name = projectStoreName(organizationId, project);
  let home: ProjectHome = "own";
  if (!OWN_HOMES.has(name)) {
    home = await contractStore(env, organizationId).projectHome(project);
    if (home === "own") {
      if (OWN_HOMES.size >= OWN_HOMES_KEPT) OWN_HOMES.clear();
      OWN_HOMES.add(name);
    }
  }
  return home === "own"
    ? {
        env,
        organizationId,
        project,
        home,
        store: tracedStub(env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(name)), "ContractStore"),
        space: projectSpace(organizationId, project),
      }
    : {
        env,
        organizationId,
        project,
        home,
        store: tracedStub(env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(organizationId)), "ContractStore"),
        space: organizationSpace(organizationId),
      };
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
  place: ContentPlace,
  bytes: Uint8Array,
  hash: string,
): Promise<{ pieces: ContentPieces; reused: boolean | null }> {
  if (bytes.byteLength <= SQL_CONTENT_MAX)
    return { pieces: { hash, size: bytes.byteLength, chunkCount: 1, inline: bytes.slice() }, reused: null };
  const pieces = { hash, size: bytes.byteLength, chunkCount: 0, inline: null, inBucket: true };
  if (await place.store.blobInfo(hash)) return { pieces, reused: true };
  await putBucketContent(place.env, place.space, hash, bytes);
  return { pieces, reused: false };
}

/** Where a stored content's bytes are read from: the store holding its record, and that store's bucket space. */
export type ContentPlace = Pick<ProjectPlace, "env" | "store" | "space">;

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
    const bytes = await readBucketContent(place.env, place.space, info.hash);
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
export async function readContent(place: ContentPlace, hash: string): Promise<Uint8Array | null> {
  const info = await place.store.blobInfo(hash);
  return info ? readPieces(place, info) : null;
}

/** The stored document as UTF-8 text (documents are validated as UTF-8 at upload). */
export async function readContentText(place: ContentPlace, hash: string): Promise<string | null> {
  const bytes = await readContent(place, hash);
  return bytes ? new TextDecoder().decode(bytes) : null;
}

/** Streams the stored bytes piece by piece, for downloads. */
export async function streamContent(
  place: ContentPlace,
  hash: string,
): Promise<{ size: number; body: ReadableStream<Uint8Array> } | null> {
  const { store } = place;
  const info = await store.blobInfo(hash);
  if (!info) return null;
  if (info.storedIn === "r2") return streamBucketContent(place.env, place.space, hash);
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
export async function readVerdictBody(place: ContentPlace, verdictHash: string): Promise<Verdict | null> {
  const bytes = await place.store.readVerdictBody(verdictHash);
  return bytes ? (JSON.parse(new TextDecoder().decode(bytes)) as Verdict) : null;
}
