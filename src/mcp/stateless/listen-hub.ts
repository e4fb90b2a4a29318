/**
 * ListenHub: one Durable Object per organization that holds the open subscriptions/listen streams of its
 * 2026-07-28 clients (a stateless Worker request cannot outlive itself; a stream served from here stays open
 * as long as the client keeps reading). Each user gets their own SDK v2 handler per OAuth client, so its in-memory
 * change bus reaches only that user's streams of that client: a change announced for the organization is published
 * to each user whose view it changes (spec://active/contract follows the user's default project). Bounded per user
 * and per organization (a user's entry goes when their last stream closes); a stream may follow only resources its
 * caller could read (listen-filter.ts). Refusals are JSON-RPC errors that say what to do.
 */
import { DurableObject } from "cloudflare:workers";
import { createMcpHandler } from "agents/mcp/server";
import type { Env } from "../../env";
import { CORRELATION_HEADER, forwardedCorrelationId } from "../../core/correlation";
import { Failure } from "../../core/failure";
import { failureAsJsonRpcError } from "../../core/failure-mapping";
import { JSON_RPC_ERROR, type JsonRpcErrorObject, jsonRpcErrorResponse } from "../jsonrpc-error";
import { governed } from "../../core/governed";
import type { SessionState } from "../context";
import type { Principal } from "../../core/principal";
import type { ResourceChange } from "../resource-change";
import type { ListenHubRpc } from "../session-rpc";
import { pipelineDepsFor } from "../deps";
import { decodePrincipal, PRINCIPAL_HEADER } from "../principal-header";
import { getCatalog } from "../deployment-catalog";
import { authInfoOf, STATELESS_HANDLER_OPTIONS } from "./handler";
import { checkListenUris, listenOperation } from "./listen-filter";
import { GrantWatch } from "../../oauth/live-grant";
import { createStatelessServer } from "./server";

/** Open listen streams one user may hold through one client (one per client window is the normal case). */
export const MAX_LISTENS_PER_USER = 8;
/** Users of one organization with open listen streams at the same time. */
export const MAX_LISTENING_USERS = 500;

/** The streams of one user through one OAuth client: one SDK handler, and the grant they were opened under. */
interface UserListens {
  handler: ReturnType<typeof createMcpHandler>;
  userId: string;
  /** Streams still open; the entry goes when the last one closes. */
  open: number;
  /** Ends each open stream. */
  closers: Set<() => void>;
  /** Asked before a change is published: a revoked grant ends the streams instead (src/oauth/live-grant.ts). */
  grant: GrantWatch;
}

/** The key of a user's streams through one client. */
const listenKey = (userId: string, clientId: string) => JSON.stringify([userId, clientId]);

const NO_STATE: SessionState = { get: async () => undefined, put: async () => {} };

function refusal(id: unknown, error: JsonRpcErrorObject): Response {
  return jsonRpcErrorResponse(200, error, { id });
}

export class ListenHub extends DurableObject<Env> implements ListenHubRpc {
  /** By user and client (listenKey). */
  private readonly users = new Map<string, UserListens>();

  /** Ends every open stream (the organization was suspended or deleted). */
  async closeAll(_organizationId: string): Promise<number> {
    const open = [...this.users.values()].flatMap((listens) => [...listens.closers]);
    for (const close of open) close();
    return open.length;
  }

  /** The streams of one user of the organization through one client. */
  private listensOf(organizationId: string, userId: string, clientId: string): UserListens {
    const key = listenKey(userId, clientId);
    let listens = this.users.get(key);
    if (!listens) {
      const env = this.env;
      const deps = pipelineDepsFor(env);
      const handler = createMcpHandler(
        ({ authInfo }) => {
          const verified = authInfo?.extra as { principal: Principal; correlationId: string } | undefined;
          if (!verified) throw new Error("a listen stream reached the hub without the principal its front verified");
          const { principal, correlationId } = verified;
          return createStatelessServer(getCatalog(), { env, principal, correlationId, ...deps });
        },
        { ...STATELESS_HANDLER_OPTIONS, maxSubscriptions: MAX_LISTENS_PER_USER },
      );
      const grant = new GrantWatch({ organizationId, userId, clientId });
      listens = { handler, userId, open: 0, closers: new Set(), grant };
      this.users.set(key, listens);
    }
    return listens;
  }

  /** Counts the stream as open until its body ends or the client goes away, then forgets an idle user. */
  private tracked(key: string, listens: UserListens, response: Response): Response {
    if (!response.body || !response.headers.get("content-type")?.includes("text/event-stream")) {
      if (listens.open === 0) this.users.delete(key);
      return response;
    }
    listens.open++;
    let released = false;
    const closers = listens.closers;
    const release = () => {
      if (released) return;
      released = true;
      closers.delete(close);
      listens.open--;
      if (listens.open === 0 && this.users.get(key) === listens) this.users.delete(key);
    };
    const reader = response.body.getReader();
    let streamController: ReadableStreamDefaultController<Uint8Array> | undefined;
    const close = () => {
      release();
      try {
        streamController?.close();
      } catch {
        // Already closed or errored: nothing more to end.
      }
      reader.cancel("organization no longer served").catch(() => undefined);
    };
    closers.add(close);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        streamController = controller;
      },
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            release();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          release();
          controller.error(error);
        }
      },
      async cancel(reason) {
        release();
        await reader.cancel(reason).catch(() => undefined);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  }

  /**
   * A subscriptions/listen request forwarded by the Worker (principal verified there, in the internal header),
   * opened through the governed core: the filter's scopes, the listen quota, one audit record for the opening.
   */
  override async fetch(request: Request): Promise<Response> {
    const principal = decodePrincipal(request.headers.get(PRINCIPAL_HEADER));
    const correlationId = forwardedCorrelationId(request.headers.get(CORRELATION_HEADER));
    const body: unknown = await request.json().catch(() => null);
    const id = (body as { id?: unknown } | null)?.id;
    if (!principal)
      return refusal(id, {
        code: JSON_RPC_ERROR.invalidRequest,
        message: "This request carries no verified identity. Send it to /mcp with an OAuth token.",
      });
    const operation = listenOperation(getCatalog(), (body as { params?: unknown } | null)?.params);
    if (operation instanceof Failure) return refusal(id, failureAsJsonRpcError(operation, correlationId));
    const call = {
      principal,
      correlationId,
      arguments: (body as { params?: unknown } | null)?.params,
      deps: pipelineDepsFor(this.env),
    };
    const opened = await governed(operation, call, {
      handler: async () => {
        // The same refusals as resources/subscribe: unknown projects, other organizations' projects.
        await checkListenUris(getCatalog(), call.arguments, {
          principal,
          correlationId,
          env: this.env,
          session: NO_STATE,
          signal: request.signal,
          progress: async () => {},
        });
        const key = listenKey(principal.userId, principal.clientId);
        // Users with open streams, through any client.
        const listening = new Set([...this.users.values()].map((listens) => listens.userId));
        if (!listening.has(principal.userId) && listening.size >= MAX_LISTENING_USERS) {
          throw new Failure(
            "unavailable",
            `Subscription limit reached: ${MAX_LISTENING_USERS} users of this organization are listening already. Retry later.`,
            { limit: MAX_LISTENING_USERS },
          );
        }
        const headers = new Headers(request.headers);
        headers.delete(PRINCIPAL_HEADER);
        const forwarded = new Request(request.url, {
          method: "POST",
          headers,
          body: JSON.stringify(body),
          signal: request.signal,
        });
        const listens = this.listensOf(principal.organizationId, principal.userId, principal.clientId);
        const response = await listens.handler.fetch(forwarded, {
          authInfo: authInfoOf(principal, correlationId),
          parsedBody: body,
        });
        return this.tracked(key, listens, response);
      },
    });
    return opened.ok ? opened.value : refusal(id, failureAsJsonRpcError(opened.failure, correlationId));
  }

  /**
   * Publishes `change` on the listen streams of this organization: each changed URI to each user whose view of
   * it changed (a resource with `changedBy` decides per user). Streams that did not ask for a URI get nothing
   * (the SDK filters by each stream's resourceSubscriptions). Streams whose grant is gone (their member removed or
   * demoted beyond it, their client revoked) are ended instead. Returns how many users were considered.
   */
  async announce(organizationId: string, change: ResourceChange): Promise<number> {
    const catalog = getCatalog();
    for (const listens of [...this.users.values()]) {
      const { handler, userId } = listens;
      if (!(await listens.grant.holds(this.env))) {
        for (const close of [...listens.closers]) close();
        continue;
      }
      for (const uri of change.changed) {
        const resource = catalog.resources.get(uri);
        if (
          resource?.changedBy &&
          !(await resource.changedBy(change.topic, { session: NO_STATE, organizationId, userId, env: this.env }))
        )
          continue;
        handler.notify.resourceUpdated(uri);
      }
    }
    return this.users.size;
  }
}
