/**
 * The hot path's view of the directory: an isolate cache in front of the directory object, so a warm isolate
 * resolves an organization's settings with no round trip. An entry is served as it is for DIRECTORY_REFRESH_MS;
 * past that, the request that finds it still gets it and one refresh starts beside it (stale-while-revalidate:
 * concurrent requests neither wait nor each read the directory); past DIRECTORY_CACHE_MS a request waits for a
 * fresh read. So no entry older than DIRECTORY_CACHE_MS (2 s) is ever served, and a change applies within 2 s on
 * every isolate (the bound docs/architecture.md states); a change made through this isolate drops its entry at
 * once, so it applies to its next request. The refresh in flight is plain data (its start time), never a promise
 * shared across requests: the Workers runtime forbids one request awaiting another's I/O. When the directory
 * cannot be reached, an entry up to a minute old is used rather than refusing every call; older, the call is
 * refused (fail closed: a suspension must not be skipped).
 *
 * An isolate reads an organization from its view (view.ts, one object per organization), not from the directory
 * object itself: the views answer every isolate's refreshes, and the directory is read once per change of an
 * organization (and at most every VIEW_MAX_AGE_MS per view), however many isolates serve it.
 */
import type { Env } from "../env";
import { logWarn } from "../lib/log";
import type { DirectoryRpc, ResolvedOrganization, SignInEntry } from "./rpc";
import type { OrganizationViewRpc } from "./view-rpc";

/** The oldest entry ever served: the bound a change takes to reach every isolate. */
export const DIRECTORY_CACHE_MS = 2_000;
/** Past this age an entry is still served, and refreshed beside the request that found it. */
export const DIRECTORY_REFRESH_MS = 1_000;
const STALE_FALLBACK_MS = 60_000;
/**
 * The most organizations one isolate holds: past it, the one loaded longest ago goes (an organization in use is loaded
 * again every second, so it stays). An isolate of a deployment with many organizations would otherwise keep every one
 * it ever served, each with its settings and credential.
 */
export const MAX_CACHED_ORGANIZATIONS = 1_000;

interface Entry<T> {
  value: T;
  at: number;
  /** When the refresh beside a request started; a refresh that died with its request is retried a second later. */
  refreshingSince?: number;
}

const organizations = new Map<string, Entry<ResolvedOrganization | null>>();
let ownProviders: Entry<boolean> | undefined;

export function directoryStub(env: Pick<Env, "DIRECTORY">): DurableObjectStub<DirectoryRpc> {
  return env.DIRECTORY.get(env.DIRECTORY.idFromName("directory"));
}

/** The view of `organizationId` (view.ts): where the hot path reads the organization. */
export function organizationView(
  env: Pick<Env, "DIRECTORY_VIEW">,
  organizationId: string,
): DurableObjectStub<OrganizationViewRpc> {
  return env.DIRECTORY_VIEW.get(env.DIRECTORY_VIEW.idFromName(organizationId));
}

export class DirectoryUnavailable extends Error {
  override readonly name = "DirectoryUnavailable";
  constructor() {
    super("The organization directory cannot be reached right now. Try again in a minute.");
  }
}

interface Slot<T> {
  get(): Entry<T> | undefined;
  set(entry: Entry<T>): void;
}

async function cached<T>(slot: Slot<T>, load: () => Promise<T>, now: number): Promise<T> {
  const entry = slot.get();
  const age = entry ? now - entry.at : Number.POSITIVE_INFINITY;
  if (entry && age < DIRECTORY_REFRESH_MS) return entry.value;
  if (entry && age < DIRECTORY_CACHE_MS) {
    if (entry.refreshingSince === undefined || now - entry.refreshingSince >= DIRECTORY_REFRESH_MS) {
      entry.refreshingSince = now;
      // Not awaited: this request answers from the entry; the read lands for the requests after it.
      load().then(
        (value) => {
          // A change made here meanwhile dropped the entry; a newer read may have replaced it: keep theirs.
          if (slot.get() === entry) slot.set({ value, at: now });
        },
        (error: unknown) => logWarn("organization directory unreachable", { error }),
      );
    }
    return entry.value;
  }
  try {
    const value = await load();
    slot.set({ value, at: now });
    return value;
  } catch (error) {
    logWarn("organization directory unreachable", { error });
    if (entry && age < STALE_FALLBACK_MS) return entry.value;
    throw new DirectoryUnavailable();
  }
}

/** The organization's record and upstream credential; null when the directory has no such organization. */
export function resolveOrganization(
  env: Pick<Env, "DIRECTORY_VIEW">,
  organizationId: string,
  now = Date.now(),
): Promise<ResolvedOrganization | null> {
  return cached(
    {
      get: () => organizations.get(organizationId),
      set: (entry) => {
        // Newest last: a Map keeps its insertion order, so its first key is the one loaded longest ago.
        organizations.delete(organizationId);
        organizations.set(organizationId, entry);
        if (organizations.size > MAX_CACHED_ORGANIZATIONS) {
          const oldest = organizations.keys().next().value;
          if (oldest !== undefined) organizations.delete(oldest);
        }
      },
    },
    async () => (await organizationView(env, organizationId).resolve()) as ResolvedOrganization | null,
    now,
  );
}

/**
 * The active organizations whose claim values or e-mail domains a platform-provider sign-in names, for its mapping
 * (src/auth/oidc-mapping.ts). Not cached: a sign-in's completion is rare, and it must see an organization just made.
 */
export async function signInCandidates(
  env: Pick<Env, "DIRECTORY">,
  claimValues: readonly string[],
  emailDomain: string | null,
): Promise<Record<string, SignInEntry>> {
  return (await directoryStub(env).signInCandidates(claimValues, emailDomain)) as Record<string, SignInEntry>;
}

/** Whether any active organization has its own provider (the sign-in page's choices), cached like resolve's. */
export function anyOwnProvider(env: Pick<Env, "DIRECTORY">, now = Date.now()): Promise<boolean> {
  return cached(
    {
      get: () => ownProviders,
      set: (entry) => {
        ownProviders = entry;
      },
    },
    async () => directoryStub(env).anyOwnProvider(),
    now,
  );
}

/** How many organizations this isolate holds (at most MAX_CACHED_ORGANIZATIONS). */
export function cachedOrganizationCount(): number {
  return organizations.size;
}

/** Drops everything this isolate holds from the directory: its next reads go to the directory (a storage reset). */
export function forgetEveryOrganization(): void {
  organizations.clear();
  ownProviders = undefined;
}

/** Drops what this isolate holds about an organization. */
export function forgetOrganization(organizationId: string): void {
  organizations.delete(organizationId);
  ownProviders = undefined;
}

/**
 * After a change made here, before its answer: this isolate and the organization's view drop what they hold, so the
 * change applies to the next request, here and on every isolate once its entry is refreshed. The directory tells the
 * view as well (store.ts), and keeps trying, so a view not reached here is still told.
 */
export async function organizationChanged(env: Pick<Env, "DIRECTORY_VIEW">, organizationId: string): Promise<void> {
  forgetOrganization(organizationId);
  try {
    await organizationView(env, organizationId).forget();
  } catch (error) {
    logWarn("organization view not told of a change; the directory tells it", { organizationId, error });
  }
}
