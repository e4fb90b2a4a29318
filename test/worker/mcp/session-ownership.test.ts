// An MCP session belongs to the organization, user and OAuth client that created it, on every method: anyone
// else gets exactly the answer an unknown session id gets (404 "Session not found", JSON-RPC -32001), and nothing
// they send reaches the session (issue 9, item 1). Session ids are sealed for their owner (src/mcp/session/sealed-id.ts),
// so the front answers both before any session object is reached. The /mcp handler (harness.ts: one principal per client), real McpAgent Durable Objects.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { announceToSession, sessionObjectName } from "../../../src/mcp/announce";
import type { Env as WorkerEnv } from "../../../src/env";
import { storedRows } from "../stored-rows";
import { fetchAs, mcpPrincipal, type Caller } from "../harness";
import { MCP_URL, initializeSession, mcpPost, obtainTokens, rpc, sessionObjectId } from "../helpers";
import { ordersContract, violatingSnapshot } from "../contracts-mcp/fixtures";
import { ciPrincipal, uploadContract, uploadSnapshot } from "../contracts-mcp/helpers";

const VERSION = { "mcp-protocol-version": "2025-11-25" };
const LATEST = "spec://projects/orders/verdicts/latest";

let owner: Caller;
let otherOrganization: Caller;
let otherClient: Caller;
let ci: Caller;

beforeAll(async () => {
  // A real token: the owner's session hears changes only while the owner holds a grant (src/oauth/live-grant.ts).
  owner = (await obtainTokens({ user: "ana", scope: "orders.read contracts.read" })).tokens.access_token;
  otherOrganization = mcpPrincipal("gus", "orders.read contracts.read");
  // The same user through a second OAuth client (its own registration).
  otherClient = mcpPrincipal("ana", "orders.read contracts.read");
  ci = ciPrincipal("ana");
  await uploadContract(ci, "orders", ordersContract());
});

function unknownSessionId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
}

type Attempt = (token: Caller, session: string) => Promise<Response>;

const attempts: Record<string, Attempt> = {
  "POST ping": (token, session) =>
    mcpPost(token, { jsonrpc: "2.0", id: 7, method: "ping" }, { "mcp-session-id": session, ...VERSION }),
  "POST tools/list": (token, session) =>
    mcpPost(token, { jsonrpc: "2.0", id: 8, method: "tools/list" }, { "mcp-session-id": session, ...VERSION }),
  "POST a notification": (token, session) =>
    mcpPost(
      token,
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
      { "mcp-session-id": session, ...VERSION },
    ),
  "POST resources/subscribe": (token, session) =>
    mcpPost(
      token,
      { jsonrpc: "2.0", id: 9, method: "resources/subscribe", params: { uri: LATEST } },
      { "mcp-session-id": session, ...VERSION },
    ),
  "GET the stream": (token, session) =>
    fetchAs(token, MCP_URL, {
      method: "GET",
      headers: { Accept: "text/event-stream", "mcp-session-id": session, ...VERSION },
    }),
  DELETE: (token, session) =>
    fetchAs(token, MCP_URL, { method: "DELETE", headers: { "mcp-session-id": session, ...VERSION } }),
};

async function answer(response: Response): Promise<{ status: number; contentType: string | null; body: string }> {
  return { status: response.status, contentType: response.headers.get("content-type"), body: await response.text() };
}

/** Opens the session's standalone SSE stream and returns a reader of its JSON-RPC messages. */
async function openStream(token: Caller, session: string) {
  const response = await attempts["GET the stream"]!(token, session);
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return {
    async next(predicate: (message: Record<string, any>) => boolean): Promise<Record<string, any>> {
      for (;;) {
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        for (const line of lines) {
          if (!line.startsWith("data: ")) continue;
          const message = JSON.parse(line.slice(6));
          if (predicate(message)) return message;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("stream ended");
        buffered += decoder.decode(value, { stream: true });
      }
    },
    close: () => reader.cancel(),
  };
}

describe.each([
  ["a user of another organization", () => otherOrganization],
  ["the same user through another OAuth client", () => otherClient],
])("a session used by %s", (_who, attacker) => {
  it.each(Object.keys(attempts))("%s is answered exactly as for an unknown session id", async (name) => {
    const attempt = attempts[name]!;
    const session = await initializeSession(owner);
    const unknown = await answer(await attempt(attacker(), unknownSessionId()));
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32001, message: expect.stringMatching(/^Session not found: no session of yours/) },
    });
    const foreign = await answer(await attempt(attacker(), session));
    expect(foreign).toEqual(unknown);
    // The owner's session is untouched: it answers, and its stream slot is free (an attacker's GET would hold it).
    const ping = await rpc(owner, session, "ping", {}, 99);
    expect(ping.result).toEqual({});
    const stream = await openStream(owner, session);
    await stream.close();
  });

  it("cannot take the owner's notifications: the owner's open stream keeps receiving them", async () => {
    const session = await initializeSession(owner);
    expect((await rpc(owner, session, "resources/subscribe", { uri: LATEST })).error).toBeUndefined();
    const stream = await openStream(owner, session);
    try {
      const taken = await attempts["GET the stream"]!(attacker(), session);
      expect(taken.status).toBe(404);
      expect(await taken.text()).not.toContain("notifications/");
      await uploadSnapshot(ci, "orders", violatingSnapshot(), `own${Math.floor(Math.random() * 1e6)}`);
      const notification = await stream.next((message) => message.method === "notifications/resources/updated");
      expect(notification.params).toEqual({ uri: LATEST });
    } finally {
      await stream.close();
    }
  });
});

describe("the owner", () => {
  it("keeps every method on its own session, and DELETE by the owner still ends it", async () => {
    const session = await initializeSession(owner);
    expect((await rpc(owner, session, "tools/list")).result.tools.length).toBeGreaterThan(0);
    const deleted = await attempts.DELETE!(owner, session);
    expect(deleted.status).toBe(204);
    expect((await attempts["POST ping"]!(owner, session)).status).toBe(404);
  });
});

describe("a session id no session has", () => {
  it("reaches no object: requests naming made-up ids, an agents id without its seal, or a forged seal store nothing", async () => {
    const session = await initializeSession(owner);
    const madeUp = unknownSessionId();
    const bare = sessionObjectId(session);
    const forged = `${madeUp}.${session.slice(session.lastIndexOf(".") + 1)}`;
    for (const id of [madeUp, bare, forged, `${madeUp}.AAAA`]) {
      for (const name of Object.keys(attempts)) expect((await attempts[name]!(owner, id)).status).toBe(404);
    }
    const namespace = env.MCP_OBJECT as unknown as DurableObjectNamespace;
    // Looking wakes the object (agents' start-up writes its schema): what a request would have stored is the
    // session's props and owner, which agents and Arbiter write when a request reaches the object.
    const rows = await storedRows(namespace, namespace.idFromName(sessionObjectName(madeUp)));
    expect(Object.keys(rows).filter((name) => /props|arbiter:|initializeRequest|cf_agents_jobs/.test(name))).toEqual(
      [],
    );
    // The owner's own session, named by its sealed id, goes on.
    expect((await rpc(owner, session, "ping", {}, 98)).result).toEqual({});
  });

  it("an object that holds no session schedules nothing when a change is announced to it", async () => {
    const id = unknownSessionId();
    const change = { topic: "orders", changed: [LATEST], watched: [LATEST] };
    expect(await announceToSession(env as unknown as WorkerEnv, id, change)).toBe(false);
    const namespace = env.MCP_OBJECT as unknown as DurableObjectNamespace;
    const rows = await storedRows(namespace, namespace.idFromName(sessionObjectName(id)));
    // No session (no initialize request), and no schedule (the idle check is for sessions only): nothing runs later.
    expect(Object.keys(rows).filter((name) => /initializeRequest|cf_agents_jobs/.test(name))).toEqual([]);
  });
});
