/**
 * OAUTH_KV as the OAuth library and Arbiter's OAuth code see it. The library builds its keys from what clients send
 * (`client:<client_id>`; `grant:<user>:<grant>` and `token:<user>:<grant>:<id>` from a code, refresh or access
 * token), and Workers KV throws on a key longer than 512 bytes: an over-long client_id or token made /authorize,
 * /oauth/token and every protected resource answer 500. No such key can name anything stored, so here a read of one
 * answers "absent", a delete does nothing and a list under such a prefix is empty; the library then answers as for
 * any unknown client or token (400 page, `invalid_client`, `invalid_grant`, 401). Writes go through unchanged: only
 * keys of the library's or Arbiter's own making are written.
 */
import type { Env } from "../env";

/** Workers KV's longest key, in UTF-8 bytes. */
export const KV_MAX_KEY_BYTES = 512;

const encoder = new TextEncoder();
const tooLong = (key: unknown): boolean =>
  typeof key === "string" && key.length > KV_MAX_KEY_BYTES / 3 && encoder.encode(key).length > KV_MAX_KEY_BYTES;

/** The same namespace, answering reads of impossible keys as absent. */
export function withBoundedKeys(kv: KVNamespace): KVNamespace {
  return new Proxy(kv, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const method = value.bind(target) as (...args: unknown[]) => unknown;
      switch (property) {
        case "get":
          return (key: unknown, ...rest: unknown[]) => (tooLong(key) ? Promise.resolve(null) : method(key, ...rest));
        case "getWithMetadata":
          return (key: unknown, ...rest: unknown[]) =>
            tooLong(key) ? Promise.resolve({ value: null, metadata: null, cacheStatus: null }) : method(key, ...rest);
        case "delete":
          return (key: unknown) => (tooLong(key) ? Promise.resolve() : method(key));
        case "list":
          return (options?: { prefix?: string | null }) =>
            tooLong(options?.prefix)
              ? Promise.resolve({ keys: [], list_complete: true, cacheStatus: null })
              : method(options);
        default:
          return method;
      }
    },
  });
}

const wrapped = new WeakMap<Env, Env>();

/**
 * The environment with OAUTH_KV bounded, the same object for the same environment (caches keyed by the environment,
 * such as telemetry's configuration, keep working).
 */
export function withBoundedOAuthKv(env: Env): Env {
  let bounded = wrapped.get(env);
  if (!bounded) {
    bounded = { ...env, OAUTH_KV: withBoundedKeys(env.OAUTH_KV) };
    wrapped.set(env, bounded);
  }
  return bounded;
}
