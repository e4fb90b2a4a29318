/**
 * The resource URIs a session subscribed to (resources/subscribe), kept in the session's own storage. The SDK
 * glue (server.ts) adds and removes entries; capability modules read them through here, never through the SDK.
 * A session holds at most MAX_SUBSCRIPTIONS_PER_SESSION URIs, so one client cannot grow its session's storage
 * (and the fan-out of every change announcement) without bound.
 */
import type { SessionState } from "./context";

const SUBSCRIPTIONS_KEY = "subscriptions";

export const MAX_SUBSCRIPTIONS_PER_SESSION = 32;

export async function subscribedUris(session: SessionState): Promise<string[]> {
  return (await session.get<string[]>(SUBSCRIPTIONS_KEY)) ?? [];
}

/**
 * Adds `uri` unless the session already holds it ("held") or holds the most it may ("full"). Changes of one
 * session's list run one after another: the input gate alone does not keep two concurrent subscribes from both
 * taking the last place when their continuations resume together (concurrent calls that waited on one shared
 * promise, such as a rate-limit lease, resume in the same turn and interleave their reads and writes).
 */
export function addSubscribedUri(session: SessionState, uri: string): Promise<"added" | "held" | "full"> {
  return serialised(session, async () => {
    const current = await subscribedUris(session);
    if (current.includes(uri)) return "held";
    if (current.length >= MAX_SUBSCRIPTIONS_PER_SESSION) return "full";
    await session.put(SUBSCRIPTIONS_KEY, [...current, uri]);
    return "added";
  });
}

const queues = new WeakMap<SessionState, Promise<unknown>>();

/** Runs `change` after every change of `session`'s list that started before it. */
function serialised<T>(session: SessionState, change: () => Promise<T>): Promise<T> {
  const previous = queues.get(session) ?? Promise.resolve();
  const next = previous.then(change, change);
  queues.set(session, next.catch(() => undefined));
  return next;
}

export function removeSubscribedUri(session: SessionState, uri: string): Promise<void> {
  return serialised(session, async () => {
    const current = await subscribedUris(session);
    if (current.includes(uri)) await session.put(SUBSCRIPTIONS_KEY, current.filter((entry) => entry !== uri));
  });
}
