// Streamable HTTP at /mcp through the real Worker and McpAgent Durable Objects: negotiation, sessions,
// DNS-rebinding protection and malformed input.
import { SELF } from "../self";
import { beforeAll, describe, expect, it } from "vitest";
import { fetchAs, mcpPrincipal, type Caller } from "../harness";
import { BASE, MCP_URL, initializeSession, mcpPost, obtainTokens, readRpc, rpc } from "../helpers";
import packageJson from "../../../package.json";

// The front door (initialize, DNS-rebinding protection) with a real OAuth token; sessions and bad input at the
// handler with a verified principal of the same grant (harness.ts).
let token: string;
let caller: Caller;
beforeAll(async () => {
  token = (await obtainTokens({ user: "ana", scope: "orders.read contracts.read" })).tokens.access_token;
  caller = mcpPrincipal("ana", "orders.read contracts.read");
});

function initialize(protocolVersion: string, headers: Record<string, string> = {}) {
  return mcpPost(
    token,
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } },
    },
    headers,
  );
}

describe("initialize", () => {
  it("announces name, title, version and instructions on protocol 2025-11-25", async () => {
    const res = await initialize("2025-11-25");
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeTruthy();
    const [reply] = await readRpc(res);
    expect(reply!.result.protocolVersion).toBe("2025-11-25");
    expect(reply!.result.serverInfo).toMatchObject({ name: "arbiter", title: "Arbiter", version: packageJson.version });
    expect(reply!.result.instructions).toMatch(/order data/);
    expect(reply!.result.instructions).toMatch(/check_api_conformance/);
    expect(reply!.result.capabilities).toMatchObject({ tools: {}, resources: { subscribe: true } });
  });

  it.each(["2025-06-18", "2025-03-26", "2024-11-05"])("negotiates the older version %s", async (version) => {
    const [reply] = await readRpc(await initialize(version));
    expect(reply!.result.protocolVersion).toBe(version);
  });

  it("answers an unknown version with the latest it supports", async () => {
    const [reply] = await readRpc(await initialize("1999-01-01"));
    expect(reply!.result.protocolVersion).toBe("2025-11-25");
  });
});

describe("DNS-rebinding protection", () => {
  it("refuses a foreign Origin with 403 before anything else", async () => {
    const res = await initialize("2025-11-25", { Origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: "forbidden" });
  });

  it("refuses a malformed or opaque Origin", async () => {
    for (const origin of ["null", "file://x", "not a url"]) {
      expect((await initialize("2025-11-25", { Origin: origin })).status, origin).toBe(403);
    }
  });

  it("refuses a foreign Host with 403, even without a token", async () => {
    const res = await SELF.fetch("http://rebind.attacker.example/mcp", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(res.status).toBe(403);
  });

  it("accepts this server's own Origin", async () => {
    const res = await initialize("2025-11-25", { Origin: BASE });
    expect(res.status).toBe(200);
  });
});

describe("sessions", () => {
  it("DELETE ends a session; the ended session then gets 404", async () => {
    const session = await initializeSession(caller);
    const ok = await rpc(caller, session, "tools/list");
    expect(ok.result.tools.length).toBeGreaterThan(0);
    const del = await fetchAs(caller, MCP_URL, {
      method: "DELETE",
      headers: { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
    });
    expect(del.status).toBe(204);
    const after = await mcpPost(
      caller,
      { jsonrpc: "2.0", id: 5, method: "tools/list" },
      { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
    );
    expect(after.status).toBe(404);
  });

  it("an unknown session id gets 404", async () => {
    const res = await mcpPost(
      caller,
      { jsonrpc: "2.0", id: 5, method: "tools/list" },
      { "mcp-session-id": "0".repeat(64), "mcp-protocol-version": "2025-11-25" },
    );
    expect(res.status).toBe(404);
  });

  it("a session cannot be used by another user: it is answered as an unknown session (session-ownership.test.ts has every method)", async () => {
    const session = await initializeSession(caller);
    const other = mcpPrincipal("gus", "orders.read");
    const res = await mcpPost(
      other,
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "whoami", arguments: {} } },
      { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
    );
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      error: { code: -32001, message: expect.stringMatching(/^Session not found: no session of yours/) },
    });
  });
});

describe("bad input", () => {
  it("malformed JSON gets a JSON-RPC parse error with 400", async () => {
    const res = await mcpPost(caller, "{ not json");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
  });

  it("a body that is not a JSON-RPC message gets 400", async () => {
    const session = await initializeSession(caller);
    const res = await mcpPost(
      caller,
      { hello: "world" },
      { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: -32700 } });
  });

  it("a batch with an initialize request in it is refused with 400", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const res = await mcpPost(caller, [init, { jsonrpc: "2.0", id: 2, method: "tools/list" }]);
    expect(res.status).toBe(400);
  });

  it("a batch of requests in a session is answered per message, never with a 500", async () => {
    const session = await initializeSession(caller);
    const res = await mcpPost(
      caller,
      [
        { jsonrpc: "2.0", id: 11, method: "tools/list" },
        { jsonrpc: "2.0", id: 12, method: "ping" },
      ],
      { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
    );
    expect(res.status).toBeLessThan(500);
    if (res.status === 200) {
      const ids = (await readRpc(res)).map((m) => m.id).sort();
      expect(ids).toEqual([11, 12]);
    } else {
      expect(res.status).toBe(400);
    }
  });

  it("an oversized body gets 413", async () => {
    const session = await initializeSession(caller);
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "whoami", arguments: { pad: "x".repeat(5 * 1024 * 1024) } },
    });
    const res = await mcpPost(caller, big, { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" });
    expect(res.status).toBe(413);
  });

  it("an unknown tool gets a JSON-RPC error", async () => {
    const session = await initializeSession(caller);
    const reply = await rpc(caller, session, "tools/call", { name: "drop_database", arguments: {} });
    expect(reply.error).toMatchObject({ code: -32602 });
    expect(reply.error.message).toContain("drop_database");
  });

  it("wrong argument types get an isError result naming the field", async () => {
    const session = await initializeSession(caller);
    const reply = await rpc(caller, session, "tools/call", { name: "whoami", arguments: { verbose: "yes" } });
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0].text).toMatch(/verbose/);
  });

  it("a missing Accept header gets 406 and a wrong content type 415", async () => {
    const noAccept = await fetchAs(caller, MCP_URL, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect(noAccept.status).toBe(406);
    const wrongType = await fetchAs(caller, MCP_URL, {
      method: "POST",
      headers: { "Content-Type": "text/plain", Accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(wrongType.status).toBe(415);
  });
});
