/**
 * Documents where blobs belong: content larger than SQL_CONTENT_MAX (uploaded documents, their verdict and
 * comparison forms, large verdict bodies) lives in R2 (binding DOCUMENTS), one object per organization and content
 * hash under `organizations/<organization>/content/<hex>`. The organization's ContractStore keeps only the record
 * that names it (a `blobs` row with `stored_in = 'r2'`), written after the object, so a record never names content
 * that is not there; R2 checks the SHA-256 the key names on every write, so an object is whole or absent. Content of
 * at most SQL_CONTENT_MAX stays in the object's SQLite, written in the record's own transaction and read back with
 * the record, with no further round trip (docs/storage.md says why).
 */
import type { Env } from "../../env";

/** The largest content kept in SQLite: one row beside its record. */
export const SQL_CONTENT_MAX = 64 * 1024;

const PREFIX = "organizations/";

function hexOf(hash: string): string {
  if (!/^sha256:[0-9a-f]{64}$/.test(hash)) throw new RangeError("invalid content hash");
  return hash.slice("sha256:".length);
}

export function contentKey(organizationId: string, hash: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(organizationId)) throw new RangeError("invalid organization id");
  return `${PREFIX}${organizationId}/content/${hexOf(hash)}`;
}

export type Bucket = Pick<Env, "DOCUMENTS">;

/** Writes content under its hash; R2 refuses the write unless the bytes have that SHA-256. */
export async function putBucketContent(env: Bucket, organizationId: string, hash: string, bytes: Uint8Array) {
  await env.DOCUMENTS.put(contentKey(organizationId, hash), bytes, { sha256: hexOf(hash) });
}

/** The stored size of content, or null when the bucket has no such object. */
export async function bucketContentSize(env: Bucket, organizationId: string, hash: string): Promise<number | null> {
  return (await env.DOCUMENTS.head(contentKey(organizationId, hash)))?.size ?? null;
}

export async function readBucketContent(env: Bucket, organizationId: string, hash: string): Promise<Uint8Array | null> {
  const object = await env.DOCUMENTS.get(contentKey(organizationId, hash));
  return object ? new Uint8Array(await object.arrayBuffer()) : null;
}

export async function streamBucketContent(
  env: Bucket,
  organizationId: string,
  hash: string,
): Promise<{ size: number; body: ReadableStream<Uint8Array> } | null> {
  const object = await env.DOCUMENTS.get(contentKey(organizationId, hash));
  return object ? { size: object.size, body: object.body } : null;
}

export async function deleteBucketContent(env: Bucket, organizationId: string, hashes: readonly string[]) {
  for (let at = 0; at < hashes.length; at += 1000)
    await env.DOCUMENTS.delete(hashes.slice(at, at + 1000).map((hash) => contentKey(organizationId, hash)));
}

/** Every content hash the bucket holds for an organization (export, purge). */
export async function listBucketContent(env: Bucket, organizationId: string): Promise<string[]> {
  const prefix = `${PREFIX}${organizationId}/content/`;
  const hashes: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.DOCUMENTS.list({ prefix, ...(cursor ? { cursor } : {}) });
    for (const object of page.objects) hashes.push(`sha256:${object.key.slice(prefix.length)}`);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return hashes;
}
