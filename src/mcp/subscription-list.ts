/**
 * The resource URIs a session subscribed to (resources/subscribe), kept in the session's own storage. The SDK
 * glue (server.ts) adds and removes entries; capability modules read them through here, never through the SDK.
 */
import type { SessionState } from "./context";

const SUBSCRIPTIONS_KEY = "subscriptions";

export async function subscribedUris(session: SessionState): Promise<string[]> {
  return (await session.get<string[]>(SUBSCRIPTIONS_KEY)) ?? [];
}

export async function addSubscribedUri(session: SessionState, uri: string): Promise<void> {
  const current = await subscribedUris(session);
  if (!current.includes(uri)) await session.put(SUBSCRIPTIONS_KEY, [...current, uri]);
}

export async function removeSubscribedUri(session: SessionState, uri: string): Promise<void> {
  const current = await subscribedUris(session);
  if (current.includes(uri)) await session.put(SUBSCRIPTIONS_KEY, current.filter((entry) => entry !== uri));
}
