/**
 * Delivers a resource change that happened elsewhere (a CI upload) to the clients following it, in both eras:
 * a 2025-11-25 session is its McpAgent Durable Object (named as McpAgent.serve names it), which sends
 * notifications/resources/updated for what it subscribed to; 2026-07-28 clients have no session, so the change goes
 * to the organization's ListenHub, which publishes it on their open subscriptions/listen streams. Tool groups name
 * the sessions and the change; only this file reaches the agents.
 */
import { getAgentByName, type Agent } from "agents";
import type { Env } from "../env";
import type { ResourceChange } from "./resource-change";
import type { McpSessionRpc } from "./session-rpc";

/** The Durable Object name of a Streamable HTTP session (the naming McpAgent.serve uses). */
export function sessionObjectName(sessionId: string): string {
  return `streamable-http:${sessionId}`;
}

/** Announces `change` to one session: false when the session no longer follows the change's topic. Throws when unreachable. */
export async function announceToSession(env: Env, sessionId: string, change: ResourceChange): Promise<boolean> {
  // getAgentByName wants the namespace typed by an Agent (it calls the agent's own start-up RPC); the binding is
  // typed by what Arbiter calls (session-rpc.ts), which the session class implements.
  // biome-ignore lint/plugin: SDK adapter: getAgentByName wants the namespace typed by the agent class; the binding is typed by its RPC
  const sessions = env.MCP_OBJECT as unknown as DurableObjectNamespace<Agent<Env> & McpSessionRpc>;
  const session = await getAgentByName(sessions, sessionObjectName(sessionId));
  return session.announceChange(change);
}

/** Announces `change` on the organization's subscriptions/listen streams. Throws when the hub is unreachable. */
export async function announceToListenStreams(env: Env, organizationId: string, change: ResourceChange): Promise<void> {
  await env.LISTEN_HUB.get(env.LISTEN_HUB.idFromName(organizationId)).announce(organizationId, change);
}
