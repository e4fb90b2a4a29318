/**
 * The /mcp protected resource handler, in front of the session Durable Objects. It runs after the OAuth
 * resource server has validated the token, and:
 *  - reads the body within MAX_MCP_BODY_BYTES, answering a body that breaks off before its Content-Length
 *    with 400 (not a 500), and refuses what breaks the message bounds (message-bounds.ts) before any session;
 *  - refuses every message that needs a scope the token lacks (tools/call, resources/read,
 *    resources/subscribe, prompts/get) with the RFC 6750 403 step-up challenge, before any session is
 *    touched (the session checks again);
 *  - strips the Authorization header (tokens never reach the session) and any client-sent principal header,
 *    and attaches the verified principal of this request;
 *  - records the session owner in the props of a new session, and lets McpAgent's front see only sessions the
 *    caller owns (session-owner.ts): any other session id is answered as an unknown one;
 *  - applies the compatibility front (compat/front.ts: the real clients' known deviations it tolerates, logged
 *    and counted) before the era routing.
 */
import { insufficientScope, type OAuthResourceContext } from "@cloudflare/workers-oauth-provider";
import { CORRELATION_HEADER, newCorrelationId } from "../core/correlation";
import { failureAsJsonRpcError } from "../core/failure-mapping";
import { refuse } from "../core/governed";
import { principalFromGrant, type Principal } from "../core/principal";
import { readBodyLimited } from "../lib/body";
import type { Env } from "../env";
import type { GrantProps } from "../oauth/grant-props";
import { logWarn } from "../lib/log";
import { ArbiterMcpAgent, type SessionProps } from "./session/agent";
import { pipelineDepsFor } from "./deps";
import { checkMessageBounds, MAX_MCP_BODY_BYTES } from "./message-bounds";
import { encodePrincipal, PRINCIPAL_HEADER } from "./principal-header";
import { getCatalog } from "./deployment-catalog";
import { ownerGuardedNamespace, ownerOf } from "./session/owner";
import { scopeRefusals, type ScopeRefusal } from "./step-up";
import { auditUnknownToolCalls, unknownToolCalls } from "./unknown-tools";
import { toolsServedBesideCatalog } from "./bench-bare";
import { mcpEraOf } from "./era";
import { serveSessionless, serveStateless } from "./stateless/handler";
import {
  acceptJsonOnly,
  applyHeaderTolerances,
  readModernHeaderAsSessionEra,
  sessionlessServing,
} from "./compat/front";
import { getAuthorizationServer } from "../oauth/servers";
import { asJsonAnswer } from "./compat/json-only";
import { clientNameOf, requestKindOf } from "./compat/client-name";
import { recordTolerated } from "./compat/report";
import type { ToleranceId } from "./compat/tolerances";
import { withEveryServedVersion } from "./discover-versions";
import { JSON_RPC_ERROR, jsonRpcErrorBody, jsonRpcErrorResponse } from "./jsonrpc-error";

const agentHandler = ArbiterMcpAgent.serve("/mcp", { binding: "MCP_OBJECT" });

function jsonRpcError(status: number, code: number, message: string, data?: Record<string, unknown>): Response {
  return jsonRpcErrorResponse(status, { code, message, ...(data ? { data } : {}) });
}

/** The body of a POST as text, or the answer to a body that is too large, empty or truncated. */
async function readMcpBody(request: Request): Promise<{ text: string } | { response: Response }> {
  const read = await readBodyLimited(request, MAX_MCP_BODY_BYTES);
  if (read.ok) return { text: new TextDecoder().decode(read.bytes) };
  switch (read.reason) {
    case "too_large":
      return {
        response: jsonRpcError(
          413,
          JSON_RPC_ERROR.serverError,
          `Request body too large: the limit is ${MAX_MCP_BODY_BYTES} bytes.`,
        ),
      };
    case "empty":
      return {
        response: jsonRpcError(
          400,
          JSON_RPC_ERROR.parseError,
          "Parse error: the body is empty. Send one JSON-RPC message (or a batch) as JSON.",
        ),
      };
    case "length_mismatch":
      return {
        response: jsonRpcError(
          400,
          JSON_RPC_ERROR.parseError,
          "Parse error: the body is longer than its Content-Length. Send the message with a correct Content-Length.",
        ),
      };
    case "truncated": {
      // Usually the client went away mid-body: nobody may read this answer, so the operator's log says it too.
      logWarn("mcp request body truncated", { receivedBytes: read.received, declaredBytes: read.declared });
      const declared = read.declared === undefined ? "" : ` of the ${read.declared} its Content-Length declares`;
      return {
        response: jsonRpcError(
          400,
          JSON_RPC_ERROR.parseError,
          `Parse error: the request body was truncated: it ended after ${read.received} bytes${declared}. Send the whole message again.`,
          {
            receivedBytes: read.received,
            ...(read.declared === undefined ? {} : { declaredBytes: read.declared }),
          },
        ),
      };
    }
  }
}

/**
 * The 403 step-up answer: the challenge names every scope the client should ask for (what it holds plus what
 * is missing); the body is a JSON-RPC error per request of the POST, for clients that ignore status codes.
 */
function stepUpResponse(
  auth: OAuthResourceContext<GrantProps>["auth"],
  body: unknown,
  refused: readonly ScopeRefusal[],
): Response {
  const missing = [...new Set(refused.flatMap((refusal) => refusal.missing))];
  const challenge = insufficientScope(
    auth,
    [...new Set([...auth.scope, ...missing])],
    `This request needs the scope ${missing.join(" ")}`,
  );
  const byId = new Map(refused.filter((refusal) => refusal.id !== undefined).map((refusal) => [refusal.id, refusal]));
  const errorFor = (id: string | number | null, refusal: ScopeRefusal | undefined) =>
    jsonRpcErrorBody(id, {
      code: JSON_RPC_ERROR.invalidRequest,
      message:
        refusal?.failure.message ??
        `Not processed: another message of this batch needs the OAuth scope ${missing.join(", ")}, which this token lacks.`,
      data: { missingScopes: refusal?.missing ?? missing },
    });
  let payload: unknown;
  if (Array.isArray(body)) {
    const ids = body
      .map((message) => (message && typeof message === "object" ? (message as { id?: unknown }).id : undefined))
      .filter((id): id is string | number => typeof id === "string" || typeof id === "number");
    payload = ids.map((id) => errorFor(id, byId.get(id)));
  } else {
    payload = errorFor(refused[0]!.id ?? null, refused[0]);
  }
  return new Response(JSON.stringify(payload), { status: 403, headers: challenge.headers });
}

/** The step-up refusal is the core's scope step run before the session: each refused message is audited by the core. */
async function auditRefusals(
  env: Env,
  principal: Principal,
  correlationId: string,
  refused: readonly ScopeRefusal[],
): Promise<void> {
  const deps = pipelineDepsFor(env);
  for (const refusal of refused) {
    await refuse(
      refusal.operation,
      { principal, correlationId, arguments: refusal.arguments, deps },
      refusal.failure,
      (reason) => `${refusal.method}: ${reason} (HTTP 403 step-up)`,
    );
  }
}

/**
 * Every non-2xx answer of /mcp is JSON with a JSON-RPC error body: McpAgent's transport answers some refusals
 * (a wrong Accept or Content-Type, a bad method) as text/plain or with no content type at all.
 */
async function withJsonRpcError(response: Response): Promise<Response> {
  if (response.ok || response.status === 101) return response;
  const type = response.headers.get("content-type") ?? "";
  if (/^application\/json\b/i.test(type)) return response;
  const text = await response.text().catch(() => "");
  const headers = new Headers(response.headers);
  headers.set("Content-Type", "application/json");
  headers.delete("Content-Length");
  try {
    const parsed = JSON.parse(text) as { jsonrpc?: unknown };
    if (parsed && parsed.jsonrpc === "2.0") return new Response(text, { status: response.status, headers });
  } catch {
    // Not JSON: wrapped below.
  }
  const said = text
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .trim()
    .slice(0, 300);
  const message = said || `${response.status} ${response.statusText || "refused"}`.trim();
  const code = response.status === 404 ? JSON_RPC_ERROR.sessionNotFound : JSON_RPC_ERROR.serverError;
  return new Response(JSON.stringify(jsonRpcErrorBody(null, { code, message })), { status: response.status, headers });
}

/** The answer with this request's correlation id in X-Correlation-Id (a WebSocket upgrade is passed as it is). */
function withCorrelationId(response: Response, correlationId: string): Response {
  if (response.status === 101) return response;
  const answer = new Response(response.body, response);
  answer.headers.set(CORRELATION_HEADER, correlationId);
  return answer;
}

export const mcpResourceHandler = {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const correlationId = newCorrelationId();
    return withCorrelationId(await withJsonRpcError(await serveMcp(request, env, ctx, correlationId)), correlationId);
  },
};

async function serveMcp(request: Request, env: Env, ctx: ExecutionContext, correlationId: string): Promise<Response> {
  // biome-ignore lint/plugin: workers-oauth-provider hands the verified grant to the handler on ctx, untyped
  const { props, auth } = ctx as unknown as OAuthResourceContext<GrantProps>;
  const principal = principalFromGrant(props, auth);

  let body: string | undefined;
  let parsed: unknown;
  if (request.method === "POST") {
    const read = await readMcpBody(request);
    if ("response" in read) return read.response;
    body = read.text;
    try {
      parsed = JSON.parse(body);
    } catch {
      return jsonRpcError(400, JSON_RPC_ERROR.parseError, "Parse error: the body is not valid JSON.");
    }
    const outOfBounds = checkMessageBounds(parsed);
    if (outOfBounds)
      return jsonRpcError(400, JSON_RPC_ERROR.invalidRequest, outOfBounds.message, {
        limit: outOfBounds.bound,
        max: outOfBounds.limit,
        actual: outOfBounds.actual,
      });
    const refused = scopeRefusals(parsed, getCatalog(), principal);
    if (refused.length > 0) {
      await auditRefusals(env, principal, correlationId, refused);
      return stepUpResponse(auth, parsed, refused);
    }
    // Calls of tools that do not exist are answered by the session or the SDK, but audited here (unknown-tools.ts).
    const unknown = unknownToolCalls(parsed, getCatalog(), toolsServedBesideCatalog(env));
    if (unknown.length > 0) {
      const outcome = await auditUnknownToolCalls(unknown, { principal, correlationId, deps: pipelineDepsFor(env) });
      if (outcome.refused) {
        return jsonRpcErrorResponse(429, failureAsJsonRpcError(outcome.failure, correlationId), {
          headers: { "Retry-After": String(outcome.failure.details.retryAfter ?? 60) },
        });
      }
    }
  }

  const front = applyHeaderTolerances(request.method, request.headers, parsed);
  if ("refusal" in front)
    return jsonRpcError(front.refusal.status, JSON_RPC_ERROR.invalidRequest, front.refusal.message, front.refusal.data);
  const { headers } = front.decision;
  const tolerated = [...front.decision.tolerated];
  let jsonOnly = false;
  const reportTolerated = () => {
    if (tolerated.length === 0) return;
    const client = clientNameOf(parsed, request.headers.get("user-agent"), principal.clientId);
    ctx.waitUntil(
      recordTolerated(env, {
        organizationId: principal.organizationId,
        oauthClientId: principal.clientId,
        client,
        kind: requestKindOf(request.method, parsed),
        rules: tolerated,
      }),
    );
  };
  const answer = async (response: Response) => {
    reportTolerated();
    const served = jsonOnly ? await asJsonAnswer(response, Array.isArray(parsed)) : response;
    return withEveryServedVersion(served, parsed);
  };

  await readModernHeaderAsSessionEra(
    request.method,
    headers,
    parsed,
    principal.clientId,
    async (clientId) =>
      (await getAuthorizationServer(env).getOAuthApi(env).lookupClient(clientId))?.redirectUris ?? null,
    tolerated,
  );

  headers.delete("authorization");
  headers.delete(PRINCIPAL_HEADER);
  headers.set(CORRELATION_HEADER, correlationId);
  const routed = new Request(request.url, { method: request.method, headers });
  // 2026-07-28 requests (per-request envelope, no session) go to the stateless lane; the rest to McpAgent.
  if ((await mcpEraOf(routed, parsed, MAX_MCP_BODY_BYTES)) === "2026-07-28") {
    return answer(
      await serveStateless(
        new Request(request.url, { method: request.method, headers, body, signal: request.signal }),
        parsed,
        env,
        principal,
        correlationId,
      ),
    );
  }
  jsonOnly = acceptJsonOnly(request.method, headers, tolerated);
  const sessionless = sessionlessServing(request.method, headers, parsed);
  if (sessionless !== "none") {
    tolerated.push("sessionless-session-request" satisfies ToleranceId);
    if (sessionless === "notifications-only") return answer(new Response(null, { status: 202 }));
    return answer(
      await serveSessionless(
        new Request(request.url, { method: request.method, headers, body, signal: request.signal }),
        parsed,
        env,
        principal,
        correlationId,
      ),
    );
  }
  headers.set(PRINCIPAL_HEADER, encodePrincipal(principal));
  const forwarded = new Request(request.url, { method: request.method, headers, body });
  const owner = ownerOf(principal);
  const sessionProps: SessionProps = { owner };
  // biome-ignore lint/plugin: agents reads a new session's props from ctx.props, which ExecutionContext does not declare
  (ctx as unknown as { props: SessionProps }).props = sessionProps;
  return answer(
    await agentHandler.fetch(forwarded, { ...env, MCP_OBJECT: ownerGuardedNamespace(env.MCP_OBJECT, owner) }, ctx),
  );
}
