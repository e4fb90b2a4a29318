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
import { auditRecordOf, newCorrelationId } from "../audit/record";
import { recordAudit } from "../audit/sink";
import type { Env } from "../env";
import type { GrantProps } from "../oauth/servers";
import { ArbiterMcpAgent, type SessionProps } from "./agent";
import { missingScopes } from "./catalog";
import type { Principal } from "./context";
import { encodePrincipal, PRINCIPAL_HEADER } from "./principal-header";
import { getCatalog } from "./registry";
import { mcpEraOf } from "./era";
import { serveStateless } from "./v2/handler";

/** Requests larger than this are refused before parsing (4 MiB, the same bound McpAgent applies). */
export const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

const agentHandler = ArbiterMcpAgent.serve("/mcp", { binding: "MCP_OBJECT" });

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status });
}

interface ScopedCall {
  tool: string;
  arguments: unknown;
  missing: string[];
}

/** The tools/call messages in a (possibly batched) JSON-RPC body whose tool needs scopes the caller lacks. */
function refusedCalls(body: unknown, granted: readonly string[]): ScopedCall[] {
  const messages = Array.isArray(body) ? body : [body];
  const tools = getCatalog().tools;
  const refused: ScopedCall[] = [];
  for (const message of messages) {
    if (message && typeof message === "object" && (message as { method?: unknown }).method === "tools/call") {
      const params = (message as { params?: { name?: unknown; arguments?: unknown } }).params;
      const tool = typeof params?.name === "string" ? tools.get(params.name) : undefined;
      const missing = tool ? missingScopes(granted, tool.requiredScopes) : [];
      if (tool && missing.length > 0) refused.push({ tool: tool.name, arguments: params?.arguments, missing });
    }
  }
  return refused;
}

/** The step-up refusal happens before the session, so it leaves its own audit record here. */
async function auditRefusals(env: Env, principal: Principal, refused: readonly ScopedCall[]): Promise<void> {
  for (const call of refused) {
    const started = Date.now();
    await recordAudit(
      env,
      await auditRecordOf(
        {
          correlationId: newCorrelationId(),
          caller: principal,
          kind: "tool",
          target: call.tool,
          arguments: call.arguments,
          startedMs: started,
          outcome: "rejected-by-policy",
          reason: `missing scope ${call.missing.join(" ")} (HTTP 403 step-up)`,
        },
        started,
      ),
    );
  }
}

export function principalFromGrant(props: GrantProps, auth: { scope: readonly string[]; clientId?: string }): Principal {
  return {
    organizationId: props.organizationId,
    userId: props.userId,
    clientId: auth.clientId ?? "unknown",
    role: props.role,
    scopes: [...auth.scope],
    ...(props.projects ? { projects: [...props.projects] } : {}),
  };
}

export const mcpResourceHandler = {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const { props, auth } = ctx as unknown as OAuthResourceContext<GrantProps>;
    const principal = principalFromGrant(props, auth);

    let body: string | undefined;
    let parsed: unknown;
    if (request.method === "POST") {
      const declared = Number(request.headers.get("content-length") ?? "0");
      if (declared > MAX_MCP_BODY_BYTES) return jsonRpcError(413, -32000, `Request body too large: the limit is ${MAX_MCP_BODY_BYTES} bytes.`);
      body = await request.text();
      if (new TextEncoder().encode(body).byteLength > MAX_MCP_BODY_BYTES) {
        return jsonRpcError(413, -32000, `Request body too large: the limit is ${MAX_MCP_BODY_BYTES} bytes.`);
      }
      try {
        parsed = JSON.parse(body);
      } catch {
        return jsonRpcError(400, -32700, "Parse error: the body is not valid JSON.");
      }
      const refused = refusedCalls(parsed, principal.scopes);
      if (refused.length > 0) {
        const missing = [...new Set(refused.flatMap((call) => call.missing))];
        await auditRefusals(env, principal, refused);
        return insufficientScope(auth, [...new Set([...auth.scope, ...missing])], `This tool needs the scope ${missing.join(" ")}`);
      }
    }

    const headers = new Headers(request.headers);
    headers.delete("authorization");
    headers.delete(PRINCIPAL_HEADER);
    // 2026-07-28 requests (per-request envelope, no session) go to the stateless lane; the rest to McpAgent.
    if ((await mcpEraOf(request, parsed, MAX_MCP_BODY_BYTES)) === "2026-07-28") {
      return serveStateless(new Request(request.url, { method: request.method, headers, body, signal: request.signal }), parsed, env, principal);
    }
    headers.set(PRINCIPAL_HEADER, encodePrincipal(principal));
    const forwarded = new Request(request.url, { method: request.method, headers, body });
    const sessionProps: SessionProps = {
      owner: { organizationId: principal.organizationId, userId: principal.userId, clientId: principal.clientId },
    };
    (ctx as unknown as { props: SessionProps }).props = sessionProps;
    return agentHandler.fetch(forwarded, env, ctx);
  },
};
