/**
 * Session ids as clients see them: agents' id (the name of the session's object) followed by a tag, an HMAC of
 * that id and the session's owner (organization, user, OAuth client) under a key derived from SESSION_SECRET.
 * The /mcp front opens the id before the session lane looks it up, so a made-up id, an id from before sealing, or
 * another owner's id is answered as an unknown session (404) without reaching any object: without this, each
 * request naming a new random id created a session object with storage of its own (agents' start-up and props),
 * which nothing ever removed. The owner check inside the object (owner.ts) stays as the second line of defence.
 */
import { type Env, sessionSecret } from "../../env";
import { hasTag, type SealKey, tagText } from "../../lib/sealed";
import type { SessionOwner } from "../session-rpc";

const PURPOSE = "arbiter-mcp-session-id";

function keyOf(env: Env): SealKey {
  return { purpose: PURPOSE, secret: sessionSecret(env) };
}

function signed(id: string, owner: SessionOwner): string {
  return JSON.stringify([id, owner.organizationId, owner.userId, owner.clientId]);
}

/** The id the client is given for the session agents named `id`, owned by `owner`. */
export async function sealSessionId(id: string, owner: SessionOwner, env: Env): Promise<string> {
  return `${id}.${await tagText(signed(id, owner), keyOf(env))}`;
}

/** agents' id inside a sealed id this deployment gave `owner`; undefined for any other value. */
export async function openSessionId(value: string, owner: SessionOwner, env: Env): Promise<string | undefined> {
  const dot = value.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const id = value.slice(0, dot);
  return (await hasTag(signed(id, owner), value.slice(dot + 1), keyOf(env))) ? id : undefined;
}

/**
 * `response` from the session lane with its Mcp-Session-Id sealed for `owner`: the client's own value when the
 * lane answers with the id the client sent (`opened`), a new seal when it opened a session.
 */
export async function withSealedSessionId(
  response: Response,
  owner: SessionOwner,
  env: Env,
  sent?: { sealed: string; opened: string },
): Promise<Response> {
  const id = response.headers.get("mcp-session-id");
  if (!id) return response;
  const sealed = sent?.opened === id ? sent.sealed : await sealSessionId(id, owner, env);
  const answer = new Response(response.body, response);
  answer.headers.set("mcp-session-id", sealed);
  return answer;
}
