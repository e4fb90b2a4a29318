/**
 * Documents where blobs belong: content larger than SQL_CONTENT_MAX (uploaded documents, their verdict and
 * comparison forms, large verdict bodies) lives in R2 (binding DOCUMENTS), one object per content hash under its
 * store's space: `organizations/<organization>/projects/<project>/content/<hex>` for a project in its own store,
 * `organizations/<organization>/content/<hex>` for the organization's store (projects created before the split).
 * Each store deletes only its own space, so a hash shared by two projects is never deleted under the other. The
 * ContractStore keeps only the record
 * that names it (a `blobs` row with `stored_in = 'r2'`), written after the object, so a record never names content
 * that is not there; R2 checks the SHA-256 the key names on every write, so an object is whole or absent. Content of
 * at most SQL_CONTENT_MAX stays in the object's SQLite, written in the record's own transaction and read back with
 * the record, with no further round trip (docs/storage.md says why).
 */
import type { Env } from "../../env";

/** The largest content kept in SQLite: one row beside its record. */
export const SQL_CONTENT_MAX = 64 * 1024;

/** The bucket space of the organization's own store (its directory, and projects created before the split). */
export function organizationSpace(organizationId: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(organizationId)) throw new RangeError("invalid organization id");
  return `organizations/${organizationId}`;
}

/** The bucket space of a project's own store. */
export function projectSpace(organizationId: string, project: string): string {
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(project)) throw new RangeError("invalid project name");
  return `${organizationSpace(organizationId)}/projects/${project}`;
}

function hexOf(hash: string): string {
  if (!/^sha256:[0-9a-f]{64}$/.test(hash)) throw new RangeError("invalid content hash");
  return hash.slice("sha256:".length);
}

export function contentKey(space: string, hash: string): string {
  if (!/^organizations\/[A-Za-z0-9_-]+(\/projects\/[a-z0-9][a-z0-9._-]*)?$/.test(space))
    throw new RangeError("invalid bucket space");
  return `${space}/content/${hexOf(hash)}`;
}

export type Bucket = Pick<Env, "DOCUMENTS">;

/** Writes content under its hash; R2 refuses the write unless the bytes have that SHA-256. */
export async function putBucketContent(env: Bucket, space: string, hash: string, bytes: Uint8Array) {
  await env.DOCUMENTS.put(contentKey(space, hash), bytes, { sha256: hexOf(hash) });
}

/** The stored size of content, or null when the bucket has no such object. */
export async function bucketContentSize(env: Bucket, space: string, hash: string): Promise<number | null> {
  return (await env.DOCUMENTS.head(contentKey(space, hash)))?.size ?? null;
}

export async function readBucketContent(env: Bucket, space: string, hash: string): Promise<Uint8Array | null> {
  const object = await env.DOCUMENTS.get(contentKey(space, hash));
  return object ? new Uint8Array(await object.arrayBuffer()) : null;
}

export async function streamBucketContent(
  env: Bucket,
  space: string,
  hash: string,
): Promise<{ size: number; body: ReadableStream<Uint8Array> } | null> {
  const object = await env.DOCUMENTS.get(contentKey(space, hash));
  return object ? { size: object.size, body: object.body } : null;
}

export async function deleteBucketContent(env: Bucket, space: string, hashes: readonly string[]) {
  for (let at = 0; at < hashes.length; at += 1000)
    await env.DOCUMENTS.delete(hashes.slice(at, at + 1000).map((hash) => contentKey(space, hash)));
}

/**
 * Deletes the content the bucket holds in a store's space, a listing page (up to 1,000 objects) and its one delete
 * at a time, for at most `maxPages` pages; answers whether the space is empty (the purge then goes on in another
 * invocation: a space of any size is emptied without one invocation making more than 2 * maxPages bucket calls).
 */
export async function emptyBucketSpace(env: Bucket, space: string, maxPages: number): Promise<boolean> {
  const prefix = contentKey(space, `sha256:${"0".repeat(64)}`).slice(0, -64);
  for (let page = 0; page < maxPages; page++) {
    const listed = await env.DOCUMENTS.list({ prefix, limit: 1000 });
    if (listed.objects.length > 0) await env.DOCUMENTS.delete(listed.objects.map((object) => object.key));
    if (!listed.truncated) return true;
  }
  return false;
}
