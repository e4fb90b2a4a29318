/**
 * Requests that reach this Worker on a host other than PUBLIC_URL's (127.0.0.1 when PUBLIC_URL says localhost,
 * the workers.dev name of a custom-domain deployment): the OAuth library binds the issuer, both protected
 * resources and their metadata to PUBLIC_URL's origin, and answers anything else with an empty 404. This says
 * instead which URL is configured, as JSON, before the library is asked. /mcp's DNS-rebinding check (a Host
 * that is not allowed at all gets 403) runs before this one and is unchanged.
 */
import type { Env } from "../env";

/** The paths whose answers depend on PUBLIC_URL's origin (OAuth, the protected resources, discovery). */
function boundToPublicUrl(path: string): boolean {
  return (
    path === "/mcp" ||
    path.startsWith("/mcp/") ||
    path === "/api" ||
    path.startsWith("/api/") ||
    path === "/chat" ||
    path === "/authorize" ||
    path.startsWith("/oauth/") ||
    path.startsWith("/.well-known/")
  );
}

/** The answer for a request on the wrong origin, or undefined when the request is on PUBLIC_URL's. */
export function wrongOriginAnswer(request: Request, env: Env): Response | undefined {
  const url = new URL(request.url);
  const configured = new URL(env.PUBLIC_URL);
  if (url.origin === configured.origin || !boundToPublicUrl(url.pathname)) return undefined;
  const here = `${configured.origin}${url.pathname}`;
  return Response.json(
    {
      error: "wrong_host",
      error_description: `This server is configured for ${configured.origin} (PUBLIC_URL), and tokens, OAuth metadata and ${url.pathname} are bound to that URL; the request came to ${url.origin}. Use ${here} instead.`,
      public_url: configured.origin,
    },
    { status: 421, headers: { "Cache-Control": "no-store" } },
  );
}
