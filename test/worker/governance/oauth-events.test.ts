/**
 * OAuth events in the audit trail: a grant leaves one `grant` record; revoking a refresh token (the whole
 * grant) or an access token at the token endpoint leaves one `revoke` record; a revocation that revokes
 * nothing (unknown token, another client's token) leaves none.
 */
import { env } from "cloudflare:test";
import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../../src/audit/record";
import { auditTrailIn } from "../../../src/audit/trail";
import { BASE, initializeSession, mcpPost, obtainTokens, registerClient } from "../helpers";

async function oauthRecords(clientId: string, target: string): Promise<AuditRecord[]> {
  return (await auditTrailIn(env.AUDIT_LOG)("acme").query("acme", { clientId, kind: "oauth", target, limit: 50 }))
    .events;
}

async function revoke(clientId: string, token: string, hint?: string): Promise<Response> {
  const form = new URLSearchParams({ token, client_id: clientId });
  if (hint) form.set("token_type_hint", hint);
  return SELF.fetch(`${BASE}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: form,
  });
}

describe("OAuth events in the audit trail", () => {
  it("records a grant once", async () => {
    const { client } = await obtainTokens({ user: "mia", scope: "orders.read contracts.read" });
    const grants = await oauthRecords(client.client_id, "grant");
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({
      organizationId: "acme",
      userId: "mia",
      clientId: client.client_id,
      kind: "oauth",
      outcome: "ok",
      reason: "granted orders.read contracts.read",
    });
  });

  it("records revoking a refresh token (the grant) once, and the tokens stop working", async () => {
    const { tokens, client } = await obtainTokens({ user: "dev", scope: "orders.read contracts.read offline_access" });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    await initializeSession(tokens.access_token);

    const response = await revoke(client.client_id, tokens.refresh_token!, "refresh_token");
    expect(response.status).toBe(200);
    const revokes = await oauthRecords(client.client_id, "revoke");
    expect(revokes).toHaveLength(1);
    expect(revokes[0]).toMatchObject({
      organizationId: "acme",
      userId: "dev",
      clientId: client.client_id,
      outcome: "ok",
      reason: expect.stringContaining("grant revoked"),
    });
    expect(JSON.stringify(revokes)).not.toContain(tokens.refresh_token!);
    expect((await mcpPost(tokens.access_token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).toBe(401);

    // Revoking it again revokes nothing and records nothing.
    expect((await revoke(client.client_id, tokens.refresh_token!, "refresh_token")).status).toBe(200);
    expect(await oauthRecords(client.client_id, "revoke")).toHaveLength(1);
  });

  it("records revoking an access token once", async () => {
    const { tokens, client } = await obtainTokens({ user: "ana", scope: "orders.read contracts.read" });
    expect((await revoke(client.client_id, tokens.access_token)).status).toBe(200);
    expect(await oauthRecords(client.client_id, "revoke")).toMatchObject([
      { userId: "ana", clientId: client.client_id, reason: "access token revoked" },
    ]);
    expect((await mcpPost(tokens.access_token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).toBe(401);
  });

  it("records nothing when the revocation revokes nothing", async () => {
    const { tokens, client } = await obtainTokens({ user: "ana", scope: "orders.read contracts.read" });
    const stranger = await registerClient({ client_name: "Stranger" });
    // Another client cannot revoke this client's token (RFC 7009 still answers 200).
    expect((await revoke(stranger.client_id, tokens.access_token)).status).toBe(200);
    expect((await revoke(client.client_id, "acme--ana:not-a-grant:not-a-secret-value-at-all")).status).toBe(200);
    expect(await oauthRecords(client.client_id, "revoke")).toEqual([]);
    expect(await oauthRecords(stranger.client_id, "revoke")).toEqual([]);
    expect(
      (
        await mcpPost(tokens.access_token, {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        })
      ).status,
    ).toBe(200);
  });
});
