/**
 * The application a sign-in is for, so the sign-in page can name it: when the page returns to an
 * authorization request (/authorize?client_id=...), the client registered under that id. The name is looked
 * up server-side from the registration, never taken from the URL (a link could otherwise put any name there),
 * and cleaned like every displayed client name.
 */
import { displayClientName } from "../oauth/client-display-name";

export interface RequestingApp {
  name: string;
  /** Set for a Client ID Metadata Document client: the domain that vouches for the name. Otherwise not verified. */
  verifiedDomain?: string;
}

export type ClientLookup = (clientId: string) => Promise<{ clientName?: string | null } | null | undefined>;

export async function requestingApp(
  returnTo: string,
  lookup: ClientLookup | undefined,
): Promise<RequestingApp | undefined> {
  if (!lookup || !/^\/authorize\?/.test(returnTo)) return undefined;
  const clientId = new URLSearchParams(returnTo.slice(returnTo.indexOf("?") + 1)).get("client_id");
  if (!clientId || clientId.length > 2048) return undefined;
  try {
    const name = displayClientName((await lookup(clientId))?.clientName);
    if (!name) return undefined;
    const domain = clientId.startsWith("https://") ? new URL(clientId).hostname : undefined;
    return domain ? { name, verifiedDomain: domain } : { name };
  } catch {
    // An unknown client or a metadata document that cannot be fetched: the consent page will say so.
    return undefined;
  }
}
