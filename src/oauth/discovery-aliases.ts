/**
 * Discovery documents real clients probe besides the ones the OAuth library serves:
 *  - `/.well-known/oauth-protected-resource` at the root: ChatGPT and other clients try it when they do not
 *    read the path-suffixed document from the 401; it is the `/mcp` resource's document (RFC 9728), the resource
 *    clients connect to. The REST resource keeps its own, path-suffixed document.
 *  - `/.well-known/openid-configuration`: clients with an OpenID Connect option (ChatGPT's is on by default)
 *    ask there first; it is the authorization server's RFC 8414 metadata, the same document as
 *    `/.well-known/oauth-authorization-server`. It claims no ID tokens: no `id_token` response type, no signing
 *    algorithms, no `openid` scope (this authorization server issues access tokens only).
 */
export const ROOT_RESOURCE_METADATA = "/.well-known/oauth-protected-resource";
export const OPENID_CONFIGURATION = "/.well-known/openid-configuration";
const MCP_RESOURCE_METADATA = "/.well-known/oauth-protected-resource/mcp";
const AUTHORIZATION_SERVER_METADATA = "/.well-known/oauth-authorization-server";

type Fetcher = (request: Request) => Promise<Response>;

function rewritten(request: Request, path: string): Request {
  const url = new URL(request.url);
  url.pathname = path;
  return new Request(url, { method: request.method, headers: request.headers });
}

/** The /mcp resource's metadata, answered for the root well-known path. */
export function rootResourceMetadata(request: Request, mcpResource: Fetcher): Promise<Response> {
  return mcpResource(rewritten(request, MCP_RESOURCE_METADATA));
}

/** The authorization server's RFC 8414 metadata, answered for the OpenID Connect discovery path. */
export async function openIdConfiguration(request: Request, authorizationServer: Fetcher): Promise<Response> {
  const response = await authorizationServer(rewritten(request, AUTHORIZATION_SERVER_METADATA));
  if (!response.ok) return response;
  const metadata = (await response.json()) as Record<string, unknown>;
  // Nothing here issues ID tokens: keep the document from suggesting otherwise, whatever the library adds later.
  for (const key of Object.keys(metadata))
    if (key.startsWith("id_token_") || key === "userinfo_endpoint") delete metadata[key];
  if (Array.isArray(metadata.response_types_supported))
    metadata.response_types_supported = metadata.response_types_supported.filter((type) => type === "code");
  const headers = new Headers(response.headers);
  headers.delete("Content-Length");
  return new Response(JSON.stringify(metadata), { status: response.status, headers });
}
