/**
 * Stored documents parsed for the contract services, kept in a small per-isolate cache keyed by organization and content
 * hash. Stored content never changes under a hash, so an entry never goes stale; repeated payload validations
 * against one contract version reuse the parsed document and with it the engine's per-document index. The
 * cache is bounded by the documents' stored size: a large document (GitHub's description is 13 MB) is parsed
 * on each use rather than pinned in an isolate whose memory other requests need.
 */
import type { Env } from "../../env";
import { loadStoredDocument } from "./uploads";
import { projectPlace } from "../store/client";
import type { OpenApiDocument } from "../../engine";

const MAX_CACHED_BYTES = 8 * 1024 * 1024;
const MAX_CACHED_DOCUMENTS = 16;

interface Entry {
  document: OpenApiDocument;
  size: number;
}

const parsed = new Map<string, Entry>();
let cachedBytes = 0;

function remember(key: string, entry: Entry): void {
  if (entry.size > MAX_CACHED_BYTES) return;
  parsed.set(key, entry);
  cachedBytes += entry.size;
  // Map iteration order is insertion order: the first key is the least recently used.
  while (cachedBytes > MAX_CACHED_BYTES || parsed.size > MAX_CACHED_DOCUMENTS) {
    const oldest = parsed.keys().next().value as string;
    cachedBytes -= parsed.get(oldest)!.size;
    parsed.delete(oldest);
  }
}

/** The cache key of a stored document: also the payload validator's document key, so it is per organization. */
export function documentKey(organizationId: string, contentHash: string): string {
  return `${organizationId}\n${contentHash}`;
}

/** The parsed stored document, or null when its content is missing or no longer parses. */
export async function loadDocument(
  env: Env,
  organizationId: string,
  facts: { project: string; contentHash: string; size: number },
): Promise<OpenApiDocument | null> {
  const key = documentKey(organizationId, facts.contentHash);
  const hit = parsed.get(key);
  if (hit) {
    parsed.delete(key);
    parsed.set(key, hit);
    return hit.document;
  }
  const document = await loadStoredDocument(await projectPlace(env, organizationId, facts.project), facts.contentHash);
  if (document) remember(key, { document, size: facts.size });
  return document;
}
