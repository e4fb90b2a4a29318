/**
 * The resource URIs a session subscribed to (resources/subscribe), kept in the session's own storage. The SDK
 * glue (server.ts) adds and removes entries; capability modules read them through here, never through the SDK.
 * A session holds at most MAX_SUBSCRIPTIONS_PER_SESSION URIs, so one client cannot grow its session's storage
 * (and the fan-out of every change announcement) without bound.
 */
import type { SessionState } from "../context";

const SUBSCRIPTIONS_KEY = "subscriptions";

export const MAX_SUBSCRIPTIONS_PER_SESSION = 32;

export async function subscribedUris(session: SessionState): Promise<string[]> {
  return (await session.get<string[]>(SUBSCRIPTIONS_KEY)) ?? [];
}

/**
 * Changes of one session's list, one at a time. An input gate only holds back requests not yet delivered:
 * concurrent subscribes that were all waiting on the same thing (a rate-limit lease being renewed, say) resume
 * together, and each one's read and write would interleave with the others', so two could take the last place.
 */
const pendingChanges = new WeakMap<SessionState, Promise<unknown>>();

function oneAtATime<T>(session: SessionState, change: () => Promise<T>): Promise<T> {
  const result = (pendingChanges.get(session) ?? Promise.resolve()).then(change, change);
  pendingChanges.set(
    session,
    result.catch(() => undefined),
  );
  return result;
}

/** Adds `uri` unless the session already holds it ("held") or holds the most it may ("full"). */
export function addSubscribedUri(session: SessionState, uri: string): Promise<"added" | "held" | "full"> {
  return oneAtATime(session, async () => {
    const current = await subscribedUris(session);
    if (current.includes(uri)) return "held";
    if (current.length >= MAX_SUBSCRIPTIONS_PER_SESSION) return "full";
    await session.put(SUBSCRIPTIONS_KEY, [...current, uri]);
    return "added";
  });
}

export function removeSubscribedUri(session: SessionState, uri: string): Promise<void> {
  return oneAtATime(session, async () => {
    const current = await subscribedUris(session);
    if (current.includes(uri))
      await session.put(
        SUBSCRIPTIONS_KEY,
        current.filter((entry) => entry !== uri),
      );
  });
}
