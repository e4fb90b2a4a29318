/**
 * The compatibility step of the /mcp front: the real clients' known deviations it tolerates (compat/front.ts: the
 * header tolerances, and a 2026-07-28 header on a 2025-style body from the client known to send it), each logged and
 * counted once the request is answered (era-router.ts); a deviation it does not tolerate is refused as invalid.
 */
import { getAuthorizationServer } from "../../oauth/servers";
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
