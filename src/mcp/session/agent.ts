/**
 * The MCP session host of the 2025-11-25 lane: one SQLite-backed Durable Object per Streamable HTTP session
 * (McpAgent from `agents`). Deliberately thin: the server is built by createArbiterServer from the catalog and
 * every operation is governed by src/core; the 2026-07-28 lane (v2/) serves the same catalog without it.
 */
import type { Connection, ConnectionContext } from "agents";
import { McpAgent } from "agents/mcp";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { protocolError } from "./protocol-error";
import type { Env } from "../../env";
import type { SessionState } from "../context";
import type { Principal } from "../../core/principal";
import type { ResourceChange } from "../resource-change";
import type { McpSessionRpc, SessionOwner } from "../session-rpc";
import { AuditOutbox } from "../../audit/outbox";
import { auditDrainDelayOf } from "../../audit/drain-delay";
import { auditLogLinesOf } from "../../audit/log-lines";
import { auditTrailIn } from "../../audit/trail";
import { GrantWatch } from "../../oauth/live-grant";
import { sessionPipelineDeps } from "../deps";
import { getCatalog } from "../deployment-catalog";
import { decodePrincipal, PRINCIPAL_HEADER } from "../principal-header";
import { announceChange, createArbiterServer, type Extra } from "./server";
import { sameOwner } from "./owner";
import { primingFrame } from "./sse-priming";
import { subscribedUris } from "./subscription-list";
import { forgetEndedSession } from "../../tools/spec-arbitration/subscriptions";
import { logInfo } from "../../lib/log";

/** How long a session object stays in memory without a request: MCP_SESSION_IDLE_SECONDS, default 30. */
export function sessionIdleMs(env: Pick<Env, "MCP_SESSION_IDLE_SECONDS">): number {
  const seconds = Number(env.MCP_SESSION_IDLE_SECONDS ?? 30);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 30_000;
}

/** A session with no request for this long ends as a DELETE ends it: MCP_SESSION_TTL_SECONDS, default 7 days. */
export function sessionTtlMs(env: Pick<Env, "MCP_SESSION_TTL_SECONDS">): number {
  const seconds = Number(env.MCP_SESSION_TTL_SECONDS ?? DEFAULT_SESSION_TTL_SECONDS);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_SESSION_TTL_SECONDS) * 1000;
}

const DEFAULT_SESSION_TTL_SECONDS = 7 * 24 * 3600;
/** When the session's client last sent a request, as stored (at most one idle period old, see touch()). */
const LAST_REQUEST_KEY = "arbiter:last-request";

/** Props stored with the session when it is created: the owner, to which every later request must match. */
export interface SessionProps extends Record<string, unknown> {
  owner: SessionOwner;
}

export class ArbiterMcpAgent extends McpAgent<Env, unknown, SessionProps> implements McpSessionRpc {
  private readonly sessionState: SessionState = {
    get: async <T>(key: string) => (await this.ctx.storage.get<T>(`arbiter:${key}`)) ?? undefined,
    put: async (key: string, value: unknown) => {
      await this.ctx.storage.put(`arbiter:${key}`, value);
    },
  };

  /** Whether the owner still holds a grant for its client, asked before changes are announced (live-grant.ts). */
  private grantWatch: GrantWatch | undefined;

  /** Each call's audit record, kept in this object's storage until the drain below has stored it (outbox.ts). */
  private readonly auditOutbox = new AuditOutbox(
    this.ctx.storage.sql,
    this.ctx.id.toString(),
    () => this.scheduleAuditDrain(),
    auditLogLinesOf(this.env),
  );
  /** A drain is scheduled and has not started yet: the records added meanwhile go with it. */
  private auditDrainScheduled = false;

  server = createArbiterServer(getCatalog(), {
    env: this.env,
    session: this.sessionState,
    ...sessionPipelineDeps(this.env, this.auditOutbox),
    principalOf: (extra: Extra) => this.principalOf(extra),
  });

  /**
   * The drain runs in an alarm of this object (agents' schedule(), stored in this object's SQLite), not as work
   * left pending after the answer: see deps.ts for why. An eviction before or during it leaves the schedule and the
   * rows in storage, so the next instance drains them.
   * Not `idempotent`: agents would then return the drain already in its table, and a drain keeps its row until it
   * has finished, so a record added once that drain had read the outbox for the last time would wait for the next
   * call of the session, or forever. The flag above keeps it to one new drain per burst instead; a drain too many
   * (after an eviction forgot the flag) finds an empty outbox.
   */
  private async scheduleAuditDrain(): Promise<void> {
    if (this.auditDrainScheduled) return;
    this.auditDrainScheduled = true;
    try {
      await this.schedule(auditDrainDelayOf(this.env), "drainAuditOutbox", undefined, { idempotent: false });
    } catch (error) {
      this.auditDrainScheduled = false;
      throw error;
    }
  }

  /** Scheduled callback: stores the outbox's records in their organization's audit store (outbox.ts). */
  async drainAuditOutbox(): Promise<void> {
    this.auditDrainScheduled = false;
    await this.auditOutbox.drain(auditTrailIn(this.env.AUDIT_LOG));
  }

  /**
   * Every way a session ends goes through destroy(), which deletes this object's storage, outbox included: a
   * DELETE /mcp (agents runs it from an alarm about a second later), the platform's teardown, an interrupted
   * teardown finished on the next wake. The outbox is emptied first, into the audit store or into the log in
   * full, so ending a session never erases the records of its calls.
   */
  override async destroy(): Promise<void> {
    await this.auditOutbox.flush(auditTrailIn(this.env.AUDIT_LOG));
    const owner = this.owner ?? (await this.ctx.storage.get<SessionOwner>("arbiter:owner"));
    if (owner && (await subscribedUris(this.sessionState)).length > 0)
      await forgetEndedSession(this.env, owner.organizationId, this.getSessionId());
    await super.destroy();
  }

  /** The session's owner, fixed by the request that created it (props of later requests never replace it). */
  private owner: SessionProps["owner"] | undefined;

  // ---- leaving memory when idle -------------------------------------------------------------------------------
  // Everything a session holds is in its storage (initialize request, owner, subscriptions, audit outbox, schedules),
  // so an idle one need not stay in memory: memory then follows active sessions, not open ones. Cloudflare evicts
  // idle objects by itself after a while; this makes the bound explicit, and holds under `wrangler dev` too, which
  // keeps objects in memory until it stops. The check is one of agents' schedules (an alarm, stored), at most one
  // waiting per session, so it writes storage once per idle period, not per call, and holds no timer that would keep
  // the object from hibernating.

  private lastActive = Date.now();
  /** Whether a request reached this instance (an instance woken only by its alarm has nothing to wait for). */
  private touched = false;
  private idleCheckScheduled = false;

  /** The last request of the client in this instance (0: none yet); announcements keep a session in memory, not alive. */
  private lastRequest = 0;
  /** Whether this instance has made sure the session's expiry is scheduled (once per instance). */
  private expiryEnsured = false;

  /**
   * A request reached the session: it stays in memory at least the idle time from now. The time is stored with
   * the idle check (once per idle period, not per call), so the expiry below sees activity of at most one idle
   * period ago even when the platform drops the instance before its check.
   */
  private touch(byClient = true): void {
    this.lastActive = Date.now();
    if (byClient) this.lastRequest = this.lastActive;
    this.touched = true;
    if (!this.idleCheckScheduled) {
      this.scheduleIdleCheck(sessionIdleMs(this.env));
      if (this.lastRequest > 0) this.ctx.storage.put(LAST_REQUEST_KEY, this.lastRequest).catch(() => {});
    }
    this.ensureExpiry();
  }

  /** Schedules the session's expiry unless it has one (idempotent: one per session, however often it is woken). */
  private ensureExpiry(): void {
    if (this.expiryEnsured) return;
    this.expiryEnsured = true;
    this.schedule(Math.ceil(sessionTtlMs(this.env) / 1000), "endIfAbandoned", undefined, {
      idempotent: true,
    }).catch(() => {
      this.expiryEnsured = false;
    });
  }

  // ---- ending when abandoned ----------------------------------------------------------------------------------
  // Most clients never send DELETE: a session they leave behind would keep its storage (initialize request,
  // owner, subscriptions) forever. One stored schedule per session ends it MCP_SESSION_TTL_SECONDS after its last
  // request, the way DELETE does (the outbox is flushed first, destroy() below); a client that comes back gets
  // 404 and, as the specification asks, starts a new session.

  /** Scheduled callback: ends the session when no request came for the TTL and no stream is open; else looks later. */
  async endIfAbandoned(): Promise<void> {
    const stored = (await this.ctx.storage.get<number>(LAST_REQUEST_KEY)) ?? 0;
    const last = Math.max(stored, this.lastRequest);
    const ttl = sessionTtlMs(this.env);
    const left = last + ttl - Date.now();
    // A stream still open: the client is there, though it sends nothing.
    const wait = left > 0 ? left : this.ctx.getWebSockets().length > 0 ? ttl : 0;
    if (wait > 0) {
      await this.schedule(Math.ceil(wait / 1000), "endIfAbandoned", undefined, { idempotent: false });
      return;
    }
    if (!(await this.getInitializeRequest())) return;
    logInfo("MCP session ended after its time without requests", { idleSeconds: Math.round(ttl / 1000) });
    await this._cf_terminateSession();
  }

  private scheduleIdleCheck(ms: number): void {
    this.idleCheckScheduled = true;
    // Not `idempotent`: agents would hand back the check running now (its row stays until it returns) instead of a
    // new one. The flag keeps it to one; a check too many (after an eviction forgot the flag) finds nothing to do.
    this.schedule(Math.max(1, Math.ceil(ms / 1000)), "leaveMemoryWhenIdle", undefined, { idempotent: false }).catch(
      () => {
        this.idleCheckScheduled = false;
      },
    );
  }

  /**
   * Scheduled callback: leaves memory (the runtime drops this instance; the next request builds the session again
   * from its storage) when no request came for the idle time, no connection is open (a POST being answered, a GET
   * stream: the platform hibernates those by itself) and no audit drain waits; looks again later while requests come.
   */
  async leaveMemoryWhenIdle(): Promise<void> {
    this.idleCheckScheduled = false;
    if (!this.touched) {
      // Woken only for this check: it leaves memory again by itself. A session opened before sessions expired has
      // no expiry yet; an idle check still scheduled gives it one (it ends a TTL from now).
      if (await this.getInitializeRequest()) this.ensureExpiry();
      return;
    }
    const left = this.lastActive + sessionIdleMs(this.env) - Date.now();
    if (left > 0) return this.scheduleIdleCheck(left);
    // An open connection: the platform hibernates the object by itself, and the next request schedules a check.
    if (this.ctx.getWebSockets().length > 0) return;
    // Audit records waiting for their drain: look again once it has run.
    if (this.auditDrainScheduled) return this.scheduleIdleCheck(auditDrainDelayOf(this.env) * 1000 + 1000);
    // After this callback has returned, so agents records it as run: abort() ends the instance by throwing.
    setTimeout(() => {
      if (Date.now() - this.lastActive >= sessionIdleMs(this.env) && this.ctx.getWebSockets().length === 0)
        this.ctx.abort("idle MCP session left memory; its storage rebuilds it on the next request");
    }, 0);
  }

  override async onStart(props?: SessionProps): Promise<void> {
    let owner = await this.ctx.storage.get<SessionOwner>("arbiter:owner");
    // Only a session that is not initialized yet takes its owner from the request: an initialized session
    // without a recorded owner (none should exist) stays ownerless, so it answers no one.
    if (!owner && props?.owner && !(await this.getInitializeRequest())) {
      owner = props.owner;
      await this.ctx.storage.put("arbiter:owner", owner);
    }
    this.owner = owner;
    await super.onStart(props);
  }

  /**
   * Called over RPC by the /mcp front in place of getInitializeRequest() (see session-owner.ts): the initialize
   * request only for the session's owner, nothing (as for an unknown session) for anyone else.
   */
  async initializeRequestFor(caller: SessionOwner): Promise<Awaited<ReturnType<McpAgent["getInitializeRequest"]>>> {
    const owner = this.owner ?? (await this.ctx.storage.get<SessionOwner>("arbiter:owner"));
    if (!owner || !sameOwner(owner, caller)) return undefined;
    // Only a session's own requests keep it in memory: an unknown or foreign session id schedules nothing here.
    const initialize = await this.getInitializeRequest();
    if (initialize) this.touch();
    return initialize;
  }

  async init(): Promise<void> {}

  /** A POST's SSE stream starts with a priming event (id + retry), before any message of the request. */
  override async onConnect(connection: Connection, context: ConnectionContext): Promise<void> {
    this.touch();
    if (context.request.headers.get("cf-mcp-method") === "POST") connection.send(primingFrame(connection.id));
    return super.onConnect(connection, context);
  }

  private principalOf(extra: Extra): Principal {
    const header = extra.requestInfo?.headers[PRINCIPAL_HEADER];
    const principal = decodePrincipal(Array.isArray(header) ? header[0] : header);
    if (!principal)
      throw protocolError(
        ErrorCode.InvalidRequest,
        "This request carries no verified identity. Reconnect through /mcp with an OAuth token.",
      );
    // The front already answers other callers as for an unknown session; this is the second line of defence.
    const owner = this.owner;
    if (!owner || !sameOwner(owner, principal)) {
      throw protocolError(
        ErrorCode.InvalidRequest,
        "This MCP session belongs to another user or client. Start a new session (initialize without Mcp-Session-Id).",
      );
    }
    return principal;
  }

  /**
   * Called over RPC when something this session may have subscribed to changed: sends the notifications its
   * subscriptions ask for. False when the session no longer follows the change's topic (unsubscribed, terminated
   * with DELETE, never initialized), or when its owner no longer holds a grant for its client (removed from the
   * organization, demoted beyond it, the client revoked): the caller forgets it, and an open stream hears no more.
   */
  async announceChange(change: ResourceChange): Promise<boolean> {
    // A session that ended (or never was) is told nothing and schedules nothing: its object stays empty.
    if (!(await this.getInitializeRequest())) return false;
    this.touch(false);
    // The owner is read from storage when this call is the first thing the object does since it was evicted.
    const owner = this.owner ?? (await this.ctx.storage.get<SessionProps["owner"]>("arbiter:owner"));
    if (owner) {
      this.grantWatch ??= new GrantWatch(owner);
      if (!(await this.grantWatch.holds(this.env))) return false;
    }
    return announceChange(
      await this.server,
      getCatalog(),
      {
        session: this.sessionState,
        organizationId: owner?.organizationId ?? "",
        userId: owner?.userId ?? "",
        env: this.env,
      },
      change,
    );
  }
}
