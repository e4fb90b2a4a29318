/**
 * The hot path's view of the directory: an isolate cache in front of the directory object, so a warm isolate
 * resolves an organization's settings with no round trip. A cached entry is used for at most
 * DIRECTORY_CACHE_MS; a change made through this isolate drops its entry at once. So a change applies to the next
 * request on the isolate that made it, and within DIRECTORY_CACHE_MS (2 s) on every other isolate (the bound
 * docs/architecture.md states). When the directory cannot be reached, an entry up to a minute old is used rather
 * than refusing every call; older, the call is refused (fail closed: a suspension must not be skipped).
 */
import type { Env } from "../env";
import { logWarn } from "../lib/log";
import type { DirectoryRpc, ResolvedOrganization, SignInEntry } from "./rpc";

export const DIRECTORY_CACHE_MS = 2_000;
const STALE_FALLBACK_MS = 60_000;

interface Entry<T> {
  value: T;
  at: number;
}

const organizations = new Map<string, Entry<ResolvedOrganization | null>>();
let signIn: Entry<Record<string, SignInEntry>> | undefined;

export function directoryStub(env: Pick<Env, "DIRECTORY">): DurableObjectStub<DirectoryRpc> {
  return env.DIRECTORY.get(env.DIRECTORY.idFromName("directory"));
}

export class DirectoryUnavailable extends Error {
  override readonly name = "DirectoryUnavailable";
  constructor() {
    super("The organization directory cannot be reached right now. Try again in a minute.");
  }
}

async function cached<T>(
  entry: Entry<T> | undefined,
  load: () => Promise<T>,
  store: (entry: Entry<T>) => void,
  now: number,
): Promise<T> {
  if (entry && now - entry.at < DIRECTORY_CACHE_MS) return entry.value;
  try {
    const value = await load();
    store({ value, at: now });
    return value;
  } catch (error) {
    logWarn("organization directory unreachable", { error });
    if (entry && now - entry.at < STALE_FALLBACK_MS) return entry.value;
    throw new DirectoryUnavailable();
  }
}

/** The organization's record and upstream credential; null when the directory has no such organization. */
export function resolveOrganization(
  env: Pick<Env, "DIRECTORY">,
  organizationId: string,
  now = Date.now(),
): Promise<ResolvedOrganization | null> {
  return cached(
    organizations.get(organizationId),
    async () => (await directoryStub(env).resolve(organizationId)) as ResolvedOrganization | null,
    (entry) => organizations.set(organizationId, entry),
    now,
  );
}

/** Every active organization's e-mail domains and claim values, for the platform provider's sign-in. */
export function signInEntries(env: Pick<Env, "DIRECTORY">, now = Date.now()): Promise<Record<string, SignInEntry>> {
  return cached(
    signIn,
    async () => (await directoryStub(env).signInEntries()) as Record<string, SignInEntry>,
    (entry) => {
      signIn = entry;
    },
    now,
  );
}

/** Drops what this isolate holds about an organization (after a change made here). */
export function forgetOrganization(organizationId: string): void {
  organizations.delete(organizationId);
  signIn = undefined;
}
