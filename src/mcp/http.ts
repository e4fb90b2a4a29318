/**
 * The /mcp protected resource handler, in front of the session Durable Objects. It runs after the OAuth
 * resource server has validated the token, and:
 *  - refuses tools/call for a tool whose scopes the token lacks with the RFC 6750 403 step-up challenge,
 *    before any session is touched (the pipeline checks again, for clients that ignore HTTP);
 *  - strips the Authorization header (tokens never reach the session) and any client-sent principal header,
 *    and attaches the verified principal of this request;
 *  - records the session owner in the props of a new session.
 */
import { insufficientScope, type OAuthResourceContext } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../env";
import type { GrantProps } from "../oauth/servers";
import { ArbiterMcpAgent, type SessionProps } from "./agent";
import { missingScopes } from "./catalog";
import type { Principal } from "./context";
import { encodePrincipal, PRINCIPAL_HEADER } from "./principal-header";
import { getCatalog } from "./registry";

/** Requests larger than this are refused before parsing (4 MiB, the same bound McpAgent applies). */
export const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

const agentHandler = ArbiterMcpAgent.serve("/mcp", { binding: "MCP_OBJECT" });

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status });
}

/** Scopes needed by the tools/call messages in a (possibly batched) JSON-RPC body. */
function scopesNeeded(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  const tools = getCatalog().tools;
  const needed = new Set<string>();
  for (const message of messages) {
    if (message && typeof message === "object" && (message as { method?: unknown }).method === "tools/call") {
      const name = (message as { params?: { name?: unknown } }).params?.name;
      const tool = typeof name === "string" ? tools.get(name) : undefined;
      for (const scope of tool?.requiredScopes ?? []) needed.add(scope);
    }
  }
  return [...needed];
}

export function principalFromGrant(props: GrantProps, auth: { scope: readonly string[]; clientId?: string }): Principal {
  return {
    organizationId: props.organizationId,
    userId: props.userId,
    clientId: auth.clientId ?? "unknown",
    role: props.role,
    scopes: [...auth.scope],
  };
}

export const mcpResourceHandler = {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const { props, auth } = ctx as unknown as OAuthResourceContext<GrantProps>;
    const principal = principalFromGrant(props, auth);

    let body: string | undefined;
    if (request.method === "POST") {
      const declared = Number(request.headers.get("content-length") ?? "0");
      if (declared > MAX_MCP_BODY_BYTES) return jsonRpcError(413, -32000, `Request body too large: the limit is ${MAX_MCP_BODY_BYTES} bytes.`);
      body = await request.text();
      if (new TextEncoder().encode(body).byteLength > MAX_MCP_BODY_BYTES) {
        return jsonRpcError(413, -32000, `Request body too large: the limit is ${MAX_MCP_BODY_BYTES} bytes.`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return jsonRpcError(400, -32700, "Parse error: the body is not valid JSON.");
      }
      const missing = missingScopes(principal.scopes, scopesNeeded(parsed));
      if (missing.length > 0) {
        return insufficientScope(auth, [...new Set([...auth.scope, ...missing])], `This tool needs the scope ${missing.join(" ")}`);
      }
    }

    const headers = new Headers(request.headers);
    headers.delete("authorization");
    headers.delete(PRINCIPAL_HEADER);
    headers.set(PRINCIPAL_HEADER, encodePrincipal(principal));
    const forwarded = new Request(request.url, { method: request.method, headers, body });
    const sessionProps: SessionProps = {
      owner: { organizationId: principal.organizationId, userId: principal.userId, clientId: principal.clientId },
    };
    (ctx as unknown as { props: SessionProps }).props = sessionProps;
    return agentHandler.fetch(forwarded, env, ctx);
  },
};
