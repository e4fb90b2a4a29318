/**
 * What the MCP lanes' Durable Objects offer over RPC: the 2025-11-25 session (ArbiterMcpAgent, session/agent.ts) and the
 * 2026-07-28 listen hub (ListenHub, stateless/listen-hub.ts). Env types the MCP_OBJECT and LISTEN_HUB bindings by these
 * interfaces, so no caller imports either class; each class implements its interface.
 */
import type { ResourceChange } from "./resource-change";

/** The organization, user and OAuth client that created a session: the only caller it answers (session-owner.ts). */
export interface SessionOwner {
  organizationId: string;
  userId: string;
  clientId: string;
}

/** The methods Arbiter calls on a session object (McpAgent's own front calls its own RPC besides these). */
export interface McpSessionRpc extends Rpc.DurableObjectBranded {
  /** Sends the notifications the session's subscriptions ask for; false when it no longer follows the topic. */
  announceChange(change: ResourceChange): Promise<boolean>;
  /** The session's initialize request for its owner, nothing for anyone else (session-owner.ts). */
  initializeRequestFor(caller: SessionOwner): Promise<unknown>;
}

/** The organization's hub of open subscriptions/listen streams. */
export interface ListenHubRpc extends Rpc.DurableObjectBranded {
  /** Publishes `change` on the organization's open streams; answers how many streams it reached. */
  announce(organizationId: string, change: ResourceChange): Promise<number>;
  /** Ends every open stream (the organization was suspended or deleted: src/organizations/admin.ts); answers how many. */
  closeAll(organizationId: string): Promise<number>;
  fetch(request: Request): Promise<Response>;
}

// The Worker's binding of this object, typed by its RPC: declared here, beside the RPC, so src/env.ts imports
// nothing from the rooms above it.
declare module "../env" {
  interface Env {
    /** The 2025-11-25 MCP sessions (src/mcp/session/agent.ts), one object per session. */
    MCP_OBJECT: DurableObjectNamespace<McpSessionRpc>;
    /** Open subscriptions/listen streams of 2026-07-28 clients, one object per organization. */
    LISTEN_HUB: DurableObjectNamespace<ListenHubRpc>;
  }
}
