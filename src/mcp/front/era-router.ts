/**
 * The last step of the /mcp front: the request goes to the lane of its protocol era (era.ts). The headers the lanes
 * get carry no token (the Authorization header is stripped, and any client-sent principal header) but this
 * request's verified principal and correlation id. 2026-07-28 requests go to the stateless lane; a 2025-11-25
 * request without a session that a known client sends is served statelessly too (compat/sessionless.ts); the rest
 * go to the session lane (McpAgent), whose front sees only the sessions the caller owns (session/owner.ts). A client's
 * first contact (`initialize` or `server/discover`) also has its rate-limit counters loaded while it is answered, so
 * that its first call's decision does not wait for KV (ratelimit/limiter.ts, prepareCounters). Every answer is JSON
 * when the client accepts only JSON, and lists every protocol version this URL serves (discover-versions.ts); the
 * deviations tolerated on the way are counted by the front once the request is answered (compatibility.ts).
 */
import { CORRELATION_HEADER } from "../../core/correlation";
import { acceptJsonOnly, sessionlessServing } from "../compat/front";
import { asJsonAnswer } from "../compat/json-only";
import type { ToleranceId } from "../compat/tolerances";
import { withEveryServedVersion } from "../discover-versions";
import { mcpEraOf } from "../era";
import { encodePrincipal, PRINCIPAL_HEADER } from "../principal-header";
import { prepareCounters } from "../../ratelimit/limiter";
import { ArbiterMcpAgent, type SessionProps } from "../session/agent";
import { ownerGuardedNamespace, ownerOf } from "../session/owner";
import { openSessionId, withSealedSessionId } from "../session/sealed-id";
import { serveSessionless, serveStateless } from "../stateless/handler";
import type { FrontRequest } from "./front-request";
import { MAX_MCP_BODY_BYTES } from "./message-bounds";
import { unknownSession } from "./session-id";

const agentHandler = ArbiterMcpAgent.serve("/mcp", { binding: "MCP_OBJECT" });

const ENDED = "it has ended: closed with DELETE, or left MCP_SESSION_TTL_SECONDS without a request";

/** Whether a POST body holds a message of one of `methods`, alone or in a batch. */
function hasMethod(parsed: unknown, ...methods: string[]): boolean {
  const messages: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  return messages.some((message) => {
    const method = typeof message === "object" && message !== null ? (message as { method?: unknown }).method : null;
    return typeof method === "string" && methods.includes(method);
  });
}

/** A client's first contact in its era: `initialize` (2025-11-25, opens a session) or `server/discover` (2026-07-28). */
const firstContact = (parsed: unknown) => hasMethod(parsed, "initialize", "server/discover");

export async function routeByEra(front: FrontRequest): Promise<Response | undefined> {
  const { request, env, ctx, principal, correlationId } = front;
  const parsed = front.message?.parsed;
  const body = front.message?.text;
  const headers = front.headers ?? new Headers(request.headers);
  let jsonOnly = false;
  const answer = async (response: Response) => {
    const served = jsonOnly ? await asJsonAnswer(response, Array.isArray(parsed)) : response;
    return withEveryServedVersion(served, parsed);
  };
  const withBody = () => new Request(request.url, { method: request.method, headers, body, signal: request.signal });

  // A first contact has the client's counters listed while it is answered, so its first call waits for no KV read.
  if (firstContact(parsed)) ctx.waitUntil(prepareCounters(env.RATE_LIMITER, principal));
  headers.delete("authorization");
  headers.delete(PRINCIPAL_HEADER);
  headers.set(CORRELATION_HEADER, correlationId);
  const routed = new Request(request.url, { method: request.method, headers });
  if ((await mcpEraOf(routed, parsed, MAX_MCP_BODY_BYTES)) === "2026-07-28")
    return answer(await serveStateless(withBody(), parsed, env, principal, correlationId));

  jsonOnly = acceptJsonOnly(request.method, headers, front.tolerated);
  const sessionless = sessionlessServing(request.method, headers, parsed);
  if (sessionless !== "none") {
    front.tolerated.push("sessionless-session-request" satisfies ToleranceId);
    if (sessionless === "notifications-only") return answer(new Response(null, { status: 202 }));
    return answer(await serveSessionless(withBody(), parsed, env, principal, correlationId));
  }

  const owner = ownerOf(principal);
  // The session's id is sealed for its owner (session/sealed-id.ts): anything else is unknown before any object is
  // reached. An initialize that names a session is left to agents, which refuses it (400).
  const presented = headers.get("mcp-session-id");
  let sent: { sealed: string; opened: string } | undefined;
  if (presented && !hasMethod(parsed, "initialize")) {
    const opened = await openSessionId(presented, owner, env);
    if (opened === undefined) return answer(unknownSession());
    headers.set("mcp-session-id", opened);
    sent = { sealed: presented, opened };
  }
  headers.set(PRINCIPAL_HEADER, encodePrincipal(principal));
  const forwarded = new Request(request.url, { method: request.method, headers, body });
  const sessionProps: SessionProps = { owner };
  // biome-ignore lint/plugin: agents reads a new session's props from ctx.props, which ExecutionContext does not declare
  (ctx as unknown as { props: SessionProps }).props = sessionProps;
  const served = await agentHandler.fetch(
    forwarded,
    { ...env, MCP_OBJECT: ownerGuardedNamespace(env.MCP_OBJECT, owner) },
    ctx,
  );
  // The id opened, so the session was this caller's: agents' bare 404 means it has ended. Say so, and what to do.
  if (sent && served.status === 404) return answer(unknownSession(ENDED));
  return answer(await withSealedSessionId(served, owner, env, sent));
}
