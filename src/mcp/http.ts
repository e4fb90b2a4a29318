/**
 * The /mcp protected resource handler, run after the OAuth resource server has verified the token. A request goes
 * through the front's named steps in the one order FRONT_STEPS declares (src/mcp/front/, each testable alone):
 *  1. body (front/body.ts): a POST's body read within its bound and parsed; a truncated, empty, oversized or non-JSON
 *     body answered with a JSON-RPC error, never a 500;
 *  2. bounds (front/message-bounds.ts): batch length and id length, before anything reaches a session;
 *  3. step-up (front/step-up.ts): a message that needs a scope the token lacks answered with the RFC 6750 403
 *     challenge, audited by the core, before any session is touched (the lanes check again);
 *  4. unknown-tool audit (front/unknown-tools.ts): calls of tools that do not exist audited and rate-limited;
 *  5. params (front/message-params.ts): the params of initialize, the list methods, tools/call, prompts/get, the
 *     resource methods and logging/setLevel shaped as the protocol says, or -32602 naming the field (both SDKs would
 *     answer -32603 with a schema dump);
 *  6. compatibility (front/compatibility.ts): the real clients' known deviations tolerated, logged and counted;
 *  7. session id (front/session-id.ts): an Mcp-Session-Id no session can have answered as an unknown session;
 *  8. era router (front/era-router.ts): the token stripped, the verified principal attached, and the request served
 *     by the lane of its protocol era (session/ for 2025-11-25, stateless/ for 2026-07-28).
 * Every answer then counts the deviations tolerated on the way (front/compatibility.ts), carries the request's
 * correlation id, and a non-2xx one a JSON-RPC error body.
 */
import type { OAuthResourceContext } from "@cloudflare/workers-oauth-provider";
import { CORRELATION_HEADER, newCorrelationId } from "../core/correlation";
import { principalFromGrant, withinRoleCap } from "../core/principal";
import { currentlyGrantable } from "../directory/grantable";
import type { Env } from "../env";
import type { GrantProps } from "../oauth/grant-props";
import { readBody } from "./front/body";
import { compatibilityFront, reportTolerated } from "./front/compatibility";
import { routeByEra } from "./front/era-router";
import type { FrontRequest, FrontStep } from "./front/front-request";
import { checkBounds } from "./front/message-bounds";
import { checkParams } from "./front/message-params";
import { checkSessionId } from "./front/session-id";
import { stepUp } from "./front/step-up";
import { auditUnknownTools } from "./front/unknown-tools";
import { JSON_RPC_ERROR, jsonRpcErrorBody } from "./jsonrpc-error";

/** The front's steps, in the order a request meets them; the era router answers every request that gets to it. */
export const FRONT_STEPS: ReadonlyArray<readonly [name: string, step: FrontStep]> = [
  ["body", readBody],
  ["bounds", checkBounds],
  ["step-up", stepUp],
  ["unknown-tool audit", auditUnknownTools],
  ["params", checkParams],
  ["compatibility", compatibilityFront],
  ["session id", checkSessionId],
  ["era router", routeByEra],
];

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
  const front: FrontRequest = {
    request,
    env,
    ctx,
    principal: withinRoleCap(
      principalFromGrant(props, auth),
      await currentlyGrantable(env, props.organizationId, props.role),
    ),
    auth,
    correlationId,
    tolerated: [],
  };
  for (const [, step] of FRONT_STEPS) {
    const answer = await step(front);
    if (!answer) continue;
    reportTolerated(front);
    return answer;
  }
  throw new Error("the /mcp front's era router answered nothing");
}
