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
 * Adds `uri` unless the session already holds it ("held") or holds the most it may ("full"). The read and the
 * write follow each other with no other I/O between them, so a Durable Object's input gate keeps two concurrent
 * subscribes of one session from both taking the last place.
 */
export async function addSubscribedUri(session: SessionState, uri: string): Promise<"added" | "held" | "full"> {
  const current = await subscribedUris(session);
  if (current.includes(uri)) return "held";
  if (current.length >= MAX_SUBSCRIPTIONS_PER_SESSION) return "full";
  await session.put(SUBSCRIPTIONS_KEY, [...current, uri]);
  return "added";
}

export async function removeSubscribedUri(session: SessionState, uri: string): Promise<void> {
  const current = await subscribedUris(session);
  if (current.includes(uri)) await session.put(SUBSCRIPTIONS_KEY, current.filter((entry) => entry !== uri));
}
