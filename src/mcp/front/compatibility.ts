/**
 * The compatibility step of the /mcp front: the real clients' known deviations it tolerates (compat/front.ts: the
 * header tolerances, and a 2026-07-28 header on a 2025-style body from the client known to send it), each logged and
 * counted once the request is answered (reportTolerated, which the front runs after its last step, whichever step
 * answered); a deviation it does not tolerate is refused as invalid.
 */
import { getAuthorizationServer } from "../../oauth/servers";
import { clientNameOf, requestKindOf } from "../compat/client-name";
import { recordTolerated } from "../compat/report";
import { applyHeaderTolerances, readModernHeaderAsSessionEra } from "../compat/front";
import { JSON_RPC_ERROR, jsonRpcErrorResponse } from "../jsonrpc-error";
import type { FrontRequest } from "./front-request";

export async function compatibilityFront(front: FrontRequest): Promise<Response | undefined> {
  const { request, env, principal } = front;
  const parsed = front.message?.parsed;
  const applied = applyHeaderTolerances(request.method, request.headers, parsed);
  if ("refusal" in applied) {
    const { status, message, data } = applied.refusal;
    return jsonRpcErrorResponse(status, { code: JSON_RPC_ERROR.invalidRequest, message, ...(data ? { data } : {}) });
  }
  front.headers = applied.decision.headers;
  front.tolerated.push(...applied.decision.tolerated);
  await readModernHeaderAsSessionEra(
    request.method,
    front.headers,
    parsed,
    principal.clientId,
    async (clientId) =>
      (await getAuthorizationServer(env).getOAuthApi(env).lookupClient(clientId))?.redirectUris ?? null,
    front.tolerated,
  );
  return undefined;
}

/** Counts the deviations tolerated for this request (compat/report.ts), after the answer, whichever step gave it. */
export function reportTolerated(front: FrontRequest): void {
  if (front.tolerated.length === 0) return;
  const { request, env, ctx, principal } = front;
  const parsed = front.message?.parsed;
  ctx.waitUntil(
    recordTolerated(env, {
      organizationId: principal.organizationId,
      oauthClientId: principal.clientId,
      client: clientNameOf(parsed, request.headers.get("user-agent"), principal.clientId),
      kind: requestKindOf(request.method, parsed),
      rules: front.tolerated,
    }),
  );
}
