// Scope enforcement on tools/call at the HTTP level: the RFC 6750 step-up challenge, before any session work,
// and its audit record.
import { describe, expect, it } from "vitest";
import { BASE, initializeSession, mcpPost, obtainTokens, rpc } from "../helpers";

describe("insufficient scope on tools/call", () => {
  it("answers 403 insufficient_scope naming every scope needed, and records the refusal", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: "orders.read contracts.read" });
    const session = await initializeSession(tokens.access_token);
    const res = await mcpPost(tokens.access_token, { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "audit_events_list", arguments: {} } }, { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" });
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
      const listed = await rpc(auditor, auditSession, "tools/call", { name: "audit_events_list", arguments: { outcome: "rejected-by-policy" } });
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
    const res = await mcpPost(tokens.access_token, { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "audit_events_list", arguments: {} } }, { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" });
    expect(res.status).toBe(403);
  });
});
