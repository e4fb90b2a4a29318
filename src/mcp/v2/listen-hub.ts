/**
 * ListenHub: one Durable Object per organization that holds the open subscriptions/listen streams of its
 * 2026-07-28 clients (a stateless Worker request cannot outlive itself; a stream served from here stays open
 * as long as the client keeps reading). Each user gets their own SDK v2 handler, so its in-memory change bus
 * reaches only that user's streams: a change announced for the organization is published to each user whose
 * view it changes (spec://active/contract follows the user's default project). Bounded per user and per
 * organization; refusals are JSON-RPC errors that say what to do.
 */
import { DurableObject } from "cloudflare:workers";
import { createMcpHandler } from "agents/mcp/server";
import type { Env } from "../../env";
import type { Principal, ResourceChange, SessionState } from "../context";
import { pipelineDepsFor } from "../deps";
import { decodePrincipal, PRINCIPAL_HEADER } from "../principal-header";
import { getCatalog } from "../registry";
import { authInfoOf, STATELESS_HANDLER_OPTIONS } from "./handler";
import { createStatelessServer } from "./server";

/** Open listen streams one user may hold (one per client window is the normal case). */
export const MAX_LISTENS_PER_USER = 8;
/** Users of one organization with open listen streams at the same time. */
export const MAX_LISTENING_USERS = 500;

type UserHandler = ReturnType<typeof createMcpHandler>;

const NO_STATE: SessionState = { get: async () => undefined, put: async () => {} };

function refusal(id: unknown, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: typeof id === "string" || typeof id === "number" ? id : null, error: { code, message } });
}

export class ListenHub extends DurableObject<Env> {
  private readonly users = new Map<string, UserHandler>();

  private handlerFor(userId: string): UserHandler {
    let handler = this.users.get(userId);
    if (!handler) {
      const env = this.env;
      const deps = pipelineDepsFor(env);
      handler = createMcpHandler(
        ({ authInfo }) => createStatelessServer(getCatalog(), { env, principal: (authInfo?.extra as { principal: Principal }).principal, ...deps }),
        { ...STATELESS_HANDLER_OPTIONS, maxSubscriptions: MAX_LISTENS_PER_USER },
      );
      this.users.set(userId, handler);
    }
    return handler;
  }

  /** A subscriptions/listen request forwarded by the Worker (principal verified there, in the internal header). */
  override async fetch(request: Request): Promise<Response> {
    const principal = decodePrincipal(request.headers.get(PRINCIPAL_HEADER));
    const body: unknown = await request.json().catch(() => null);
    const id = (body as { id?: unknown } | null)?.id;
    if (!principal) return refusal(id, -32600, "This request carries no verified identity. Send it to /mcp with an OAuth token.");
    if (!this.users.has(principal.userId) && this.users.size >= MAX_LISTENING_USERS) {
      return refusal(id, -32603, `Subscription limit reached: ${MAX_LISTENING_USERS} users of this organization are listening already. Retry later.`);
    }
    const headers = new Headers(request.headers);
    headers.delete(PRINCIPAL_HEADER);
    const forwarded = new Request(request.url, { method: "POST", headers, body: JSON.stringify(body), signal: request.signal });
    return this.handlerFor(principal.userId).fetch(forwarded, { authInfo: authInfoOf(principal), parsedBody: body });
  }

  /**
   * Publishes `change` on the listen streams of this organization: each changed URI to each user whose view of
   * it changed (a resource with `changedBy` decides per user). Streams that did not ask for a URI get nothing
   * (the SDK filters by each stream's resourceSubscriptions). Returns how many users were considered.
   */
  async announce(organizationId: string, change: ResourceChange): Promise<number> {
    const catalog = getCatalog();
    for (const [userId, handler] of this.users) {
      for (const uri of change.changed) {
        const resource = catalog.resources.get(uri);
        if (resource?.changedBy && !(await resource.changedBy(change.topic, { session: NO_STATE, organizationId, userId, env: this.env }))) continue;
        handler.notify.resourceUpdated(uri);
      }
    }
    return this.users.size;
  }
}
