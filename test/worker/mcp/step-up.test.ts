// Scope enforcement on tools/call at the HTTP level: the RFC 6750 step-up challenge, before any session work,
// and its audit record.
import { describe, expect, it } from "vitest";
import { BASE, initializeSession, mcpPost, obtainTokens, rpc } from "../helpers";

describe("insufficient scope on tools/call", () => {
  it("answers 403 insufficient_scope naming every scope needed, and records the refusal", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: "orders.read contracts.read" });
    const session = await initializeSession(tokens.access_token);
    const res = await mcpPost(
      tokens.access_token,
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "audit_events_list", arguments: {} } },
      { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
    );
    expect(res.status).toBe(403);
    const challenge = res.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`);
    const scope = /scope="([^"]+)"/.exec(challenge)![1]!.split(" ");
    expect(scope.sort()).toEqual(["audit.read", "contracts.read", "orders.read"]);

    const auditor = (await obtainTokens({ user: "ana", scope: "audit.read" })).tokens.access_token;
    const auditSession = await initializeSession(auditor);
    let refusals: Array<{ target: string; outcome: string; reason: string }> = [];
    for (let attempt = 0; attempt < 20 && refusals.length === 0; attempt++) {
      const listed = await rpc(auditor, auditSession, "tools/call", {
        name: "audit_events_list",
        arguments: { outcome: "rejected-by-policy" },
      });
      refusals = listed.result.structuredContent.events;
      if (refusals.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ target: "audit_events_list", outcome: "rejected-by-policy" });
    expect(refusals[0]!.reason).toContain("audit.read");
  });

  it("lets the same call through once the token holds the scope", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: "orders.read audit.read" });
    const session = await initializeSession(tokens.access_token);
    const reply = await rpc(tokens.access_token, session, "tools/call", { name: "audit_events_list", arguments: {} });
    expect(reply.result.isError).toBeFalsy();
  });

  it("a member whose role cannot grant a scope never gets it, so the tool stays refused", async () => {
    const { tokens } = await obtainTokens({ user: "mia", scope: "orders.read audit.read" });
    expect(tokens.scope).toBe("orders.read");
    const session = await initializeSession(tokens.access_token);
    const res = await mcpPost(
      tokens.access_token,
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "audit_events_list", arguments: {} } },
      { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
    );
    expect(res.status).toBe(403);
  });
});

// Every method that reads something behind a scope gets the same step-up challenge (issue 9, item 7), with
// a JSON-RPC error in the body for clients that ignore status codes, and one audit record per refusal.
describe("insufficient scope on resources and prompts", () => {
  const VERSION = { "mcp-protocol-version": "2025-11-25" };
  const refusedMethods: Array<[string, Record<string, unknown>, { kind: string; target: string; needs: string }]> = [
    [
      "resources/read",
      { uri: "spec://active/contract" },
      { kind: "resource", target: "spec://active/contract", needs: "spec://active/contract" },
    ],
    [
      "resources/read",
      { uri: "spec://projects/orders/contracts/3" },
      {
        kind: "resource",
        target: "spec://projects/{project}/contracts/{version}",
        needs: "spec://projects/{project}/contracts/{version}",
      },
    ],
    [
      "resources/read",
      { uri: "spec://projects/orders/verdicts/latest" },
      {
        kind: "resource",
        target: "spec://projects/{project}/verdicts/latest",
        needs: "spec://projects/{project}/verdicts/latest",
      },
    ],
    [
      "resources/subscribe",
      { uri: "spec://projects/orders/verdicts/latest" },
      {
        kind: "resource",
        target: "spec://projects/{project}/verdicts/latest",
        needs: "spec://projects/{project}/verdicts/latest",
      },
    ],
    [
      "resources/subscribe",
      { uri: "spec://active/contract" },
      { kind: "resource", target: "spec://active/contract", needs: "spec://active/contract" },
    ],
    [
      "prompts/get",
      { name: "spec_driven_task", arguments: { project: "orders" } },
      { kind: "prompt", target: "spec_driven_task", needs: "the prompt spec_driven_task" },
    ],
  ];

  async function auditedRefusals(
    clientId: string,
  ): Promise<Array<{ kind: string; target: string; outcome: string; reason: string }>> {
    const auditor = (await obtainTokens({ user: "ana", scope: "audit.read" })).tokens.access_token;
    const session = await initializeSession(auditor);
    const listed = await rpc(auditor, session, "tools/call", {
      name: "audit_events_list",
      arguments: { clientId, outcome: "rejected-by-policy" },
    });
    return listed.result.structuredContent.events;
  }

  it.each(refusedMethods)(
    "%s %j without contracts.read: 403 insufficient_scope, a JSON-RPC error in the body, one audit record",
    async (method, params, expected) => {
      const { tokens, client } = await obtainTokens({ user: "ana", scope: "orders.read" });
      const session = await initializeSession(tokens.access_token);
      const res = await mcpPost(
        tokens.access_token,
        { jsonrpc: "2.0", id: 31, method, params },
        { "mcp-session-id": session, ...VERSION },
      );
      expect(res.status).toBe(403);
      const challenge = res.headers.get("www-authenticate") ?? "";
      expect(challenge).toContain('error="insufficient_scope"');
      expect(challenge).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`);
      expect(/scope="([^"]+)"/.exec(challenge)![1]!.split(" ").sort()).toEqual(["contracts.read", "orders.read"]);
      expect(await res.json()).toEqual({
        jsonrpc: "2.0",
        id: 31,
        error: {
          code: -32600,
          message: `Insufficient scope: ${expected.needs} needs the OAuth scope "contracts.read". Reconnect this client and grant it on the consent page.`,
          data: { missingScopes: ["contracts.read"] },
        },
      });
      let refusals: Awaited<ReturnType<typeof auditedRefusals>> = [];
      for (let attempt = 0; attempt < 20 && refusals.length === 0; attempt++) {
        refusals = await auditedRefusals(client.client_id);
        if (refusals.length === 0) await new Promise((r) => setTimeout(r, 50));
      }
      expect(refusals).toHaveLength(1);
      expect(refusals[0]).toMatchObject({
        kind: expected.kind,
        target: expected.target,
        outcome: "rejected-by-policy",
        reason: `${method}: missing scope contracts.read (HTTP 403 step-up)`,
      });
    },
  );

  it("a batch with one refused request answers every request of the batch in the 403 body", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: "orders.read" });
    const session = await initializeSession(tokens.access_token);
    const res = await mcpPost(
      tokens.access_token,
      [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "spec://active/contract" } },
      ],
      { "mcp-session-id": session, ...VERSION },
    );
    expect(res.status).toBe(403);
    const body = (await res.json()) as Array<{ id: number; error: { message: string } }>;
    expect(body.map((reply) => reply.id)).toEqual([1, 2]);
    expect(body[0]!.error.message).toMatch(
      /^Not processed: another message of this batch needs the OAuth scope contracts.read/,
    );
    expect(body[1]!.error.message).toMatch(/^Insufficient scope: spec:\/\/active\/contract needs/);
  });

  it("what needs no scope stays open: listings, order resources, the orders prompt; and a granted scope lets reads through", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: "orders.read" });
    const session = await initializeSession(tokens.access_token);
    for (const [method, params] of [
      ["resources/list", {}],
      ["resources/templates/list", {}],
      ["prompts/list", {}],
      ["resources/read", { uri: "graphql://schema" }],
      ["prompts/get", { name: "ask_orders", arguments: { question: "paid orders?" } }],
    ] as const) {
      const res = await mcpPost(
        tokens.access_token,
        { jsonrpc: "2.0", id: 5, method, params },
        { "mcp-session-id": session, ...VERSION },
      );
      expect(res.status, method).toBe(200);
    }
    const reader = (await obtainTokens({ user: "ana", scope: "contracts.read" })).tokens.access_token;
    const readerSession = await initializeSession(reader);
    const res = await mcpPost(
      reader,
      { jsonrpc: "2.0", id: 6, method: "resources/read", params: { uri: "spec://projects/orders/verdicts/latest" } },
      { "mcp-session-id": readerSession, ...VERSION },
    );
    expect(res.status).toBe(200);
  });
});
