/**
 * Optional per-operation response cache (policy `cacheTtlSeconds`, off by default), on the Workers Cache
 * API. The key holds the organization, the masking level, the upstream kind, the operation and a digest of
 * the variables, so no organization, masking level or variable set ever sees another's answer. Only masked,
 * error-free answers are stored (the caller guarantees it). A failing cache never fails the call.
 * Note: the Cache API is per data centre, and has no effect on *.workers.dev hostnames.
 */
import { canonicalJson } from "../audit/record";
import { sha256Hex } from "../lib/sha256";
import { logWarn } from "../lib/log";

export interface ResponseCache {
  get(key: string): Promise<Record<string, unknown> | undefined>;
  put(key: string, value: Record<string, unknown>, ttlSeconds: number): Promise<void>;
}

export interface CacheKeyParts {
  organizationId: string;
  /** Scopes held that unmask fields (from maskingLevel). */
  maskingLevel: readonly string[];
  upstreamKind: string;
  operation: string;
  variables: Record<string, unknown>;
}

/** A URL (the Cache API keys by request URL); every varying part is encoded or hashed. */
export async function responseCacheKey(parts: CacheKeyParts): Promise<string> {
  const level = parts.maskingLevel.length ? parts.maskingLevel.join("+") : "masked";
  const segments = [parts.organizationId, level, parts.upstreamKind, parts.operation].map(encodeURIComponent);
  return `https://graphql-cache.arbiter.internal/v1/${segments.join("/")}/${await sha256Hex(canonicalJson(parts.variables))}`;
}

export function cacheApiResponseCache(cacheName = "arbiter-graphql-responses"): ResponseCache | undefined {
  if (typeof caches === "undefined") return undefined;
  return {
    async get(key) {
      try {
        const cache = await caches.open(cacheName);
        const hit = await cache.match(new Request(key));
        return hit ? ((await hit.json()) as Record<string, unknown>) : undefined;
      } catch (error) {
        logWarn("graphql response cache read failed", { error });
        return undefined;
      }
    },
    async put(key, value, ttlSeconds) {
      try {
        const cache = await caches.open(cacheName);
        await cache.put(
          new Request(key),
          new Response(JSON.stringify(value), {
            headers: { "Content-Type": "application/json", "Cache-Control": `max-age=${ttlSeconds}` },
          }),
        );
      } catch (error) {
        logWarn("graphql response cache write failed", { error });
      }
    },
  };
}
