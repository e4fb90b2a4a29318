/**
 * Every tool call leaves exactly one audit record with the right outcome. The tools come from tools/list,
 * not from a hard-coded list: a tool missing from CALLS below fails the test, so whoever adds a tool adds
 * its arguments here. Also: no record holds a token or an argument value, and one organization cannot read
 * another's trail.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { digestArguments, type AuditOutcome, type AuditRecord } from "../../../src/audit/record";
import { auditTrailIn } from "../../../src/audit/trail";
import { MAX_LEASE } from "../../../src/ratelimit/leases";
import { getPolicy } from "../../../src/policy/load";
import { rateLimiterFor } from "../../../src/ratelimit/limiter";
import { conformingSnapshot, GOOD_ORDER, ordersContract } from "../contracts-mcp/fixtures";
import { restToken, uploadContract, uploadExchanges, uploadSnapshot } from "../contracts-mcp/helpers";
import { initializeSession, mcpPost, obtainTokens, rpc, type TokenSet } from "../helpers";

/** Valid and invalid arguments for every tool. Add an entry when you add a tool. */
const CALLS: Record<string, { valid: Record<string, unknown>; invalid: Record<string, unknown> }> = {
  whoami: { valid: {}, invalid: { unexpected: true } },
  audit_events_list: { valid: { limit: 5, outcome: "ok" }, invalid: { limit: 0 } },
  orders_search: { valid: { status: "paid" }, invalid: { status: 42 } },
  orders_get_by_id: { valid: { id: "ord_1001" }, invalid: {} },
  spec_projects_list: { valid: {}, invalid: { project: "audited" } },
  spec_project_select: { valid: { project: "audited" }, invalid: { project: 7 } },
  spec_contracts_list: { valid: { project: "audited" }, invalid: { project: "audited", limit: -1 } },
  spec_snapshots_list: { valid: { project: "audited" }, invalid: { project: "audited", limit: -1 } },
  spec_contract_get: { valid: { project: "audited" }, invalid: { project: "audited", version: "latest!" } },
  check_api_conformance: { valid: { project: "audited" }, invalid: { project: "audited", snapshot: "first" } },
  check_api_draft: {
    valid: { project: "audited", document: conformingSnapshot() },
    invalid: { project: "audited", document: 42 },
  },
  compare_contract_versions: { valid: { project: "audited", to: 1 }, invalid: { project: "audited", to: "first" } },
  spec_exchanges_latest: { valid: { project: "audited" }, invalid: { project: "audited", run: 1 } },
  spec_break_accept: {
    // The same acceptance again answers the recorded one, so repeated valid calls stay valid.
    valid: {
      project: "audited",
      rule: "missing-operation",
      location: "GET /orders/{id}",
      reason: "audit trail test",
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    },
    invalid: { project: "audited", reason: "no expiry" },
  },
  spec_accepted_breaks_list: { valid: { project: "audited" }, invalid: { project: "audited", limit: 5 } },
  validate_response_payload: {
    valid: { project: "audited", method: "GET", path: "/orders/ord_1001", status: 200, payload: GOOD_ORDER },
    invalid: {
      project: "audited",
      method: "GET",
      path: "/orders/ord_1001",
      status: "two hundred",
      payload: GOOD_ORDER,
    },
  },
};

let nextId = 1000;
async function callTool(token: string, session: string, name: string, args: Record<string, unknown>) {
  const reply = await rpc(token, session, "tools/call", { name, arguments: args }, nextId++);
  if (!reply.result) throw new Error(`tools/call ${name} failed: ${JSON.stringify(reply.error)}`);
  return reply.result as {
    isError?: boolean;
    content: Array<{ text: string }>;
    structuredContent?: any;
    _meta: Record<string, any>;
  };
}

/**
 * The records of one call. A session answers before its record is stored (src/mcp/deps.ts), so this waits for
 * the write to land instead of racing it.
 */
const storedRecordsOf = async (organizationId: string, correlationId: string): Promise<AuditRecord[]> =>
  (await auditTrailIn(env.AUDIT_LOG)(organizationId).query(organizationId, { correlationId, limit: 10 })).events;

/** The records of a call, once stored: the session's outbox drains within about a second of the answer. */
async function recordsOf(organizationId: string, correlationId: string): Promise<AuditRecord[]> {
  const read = () => storedRecordsOf(organizationId, correlationId);
  for (let attempt = 0; attempt < 250; attempt++) {
    const events = await read();
    if (events.length > 0) return events;
    await new Promise((done) => setTimeout(done, 20));
  }
  return read();
}

async function allRecords(organizationId: string): Promise<AuditRecord[]> {
  const store = auditTrailIn(env.AUDIT_LOG)(organizationId);
  const records: AuditRecord[] = [];
  let after: { timeMs: number; seq: number } | undefined;
  do {
    const page = await store.query(organizationId, { limit: 100, after });
    records.push(...page.events);
    after = page.next ?? undefined;
  } while (after);
  return records;
}

const mcpScopes = () =>
  Object.entries(getPolicy().scopes)
    .filter(([name, scope]) => scope.resources.includes("mcp") && name !== "offline_access")
    .map(([name]) => name);

describe("audit trail of tool calls", () => {
  let tokens: TokenSet;
  let session: string;

  beforeAll(async () => {
    // The spec tools need a project with a contract and a snapshot to answer normally.
    const ci = await restToken("ana");
    await uploadContract(ci, "audited", ordersContract());
    await uploadSnapshot(ci, "audited", conformingSnapshot(), "c0ffee1");
    await uploadExchanges(
      ci,
      "audited",
      `${JSON.stringify({ method: "GET", path: "/orders/ord_1001", status: 200, responseBody: GOOD_ORDER })}\n`,
      "application/x-ndjson",
    );
    ({ tokens } = await obtainTokens({ user: "ana", scope: mcpScopes().join(" ") }));
    session = await initializeSession(tokens.access_token);
  });

  it("records each tool call (ok, invalid input, rate-limited) exactly once with the right outcome", async () => {
    // Its own client: this test uses up the client's quota of every tool.
    const { tokens, client } = await obtainTokens({ user: "ana", scope: mcpScopes().join(" ") });
    const session = await initializeSession(tokens.access_token);
    const listed = await rpc(tokens.access_token, session, "tools/list", {}, nextId++);
    const names: string[] = listed.result.tools.map((tool: { name: string }) => tool.name);
    const missing = names.filter((name) => !(name in CALLS));
    expect(
      missing,
      `tools without an entry in CALLS (add valid and invalid arguments for them): ${missing.join(", ")}`,
    ).toEqual([]);

    const limiter = rateLimiterFor(env);
    const expectations: Array<{
      name: string;
      args: Record<string, unknown>;
      outcome: AuditOutcome;
      correlationId?: string;
    }> = [];
    for (const name of names) {
      const { valid, invalid } = CALLS[name]!;

      const ok = await callTool(tokens.access_token, session, name, valid);
      expect(ok.isError, `${name} with valid arguments: ${ok.content[0]?.text}`).toBeFalsy();
      expectations.push({ name, args: valid, outcome: "ok", correlationId: ok._meta.correlationId });

      const bad = await callTool(tokens.access_token, session, name, invalid);
      expect(bad.isError, `${name} with invalid arguments`).toBe(true);
      expect(bad.content[0]!.text).toContain(`Invalid arguments for ${name}`);
      expectations.push({ name, args: invalid, outcome: "invalid-input", correlationId: bad._meta.correlationId });

      // Use up the rest of this client's quota for the tool through the real limiter, then call once more.
      let guard = 0;
      while ((await limiter.check({ organizationId: "acme", clientId: client.client_id, target: name })).allowed) {
        if (++guard > 10_000) throw new Error("quota never ran out");
      }
      // The session may still hold calls it leased from the coordinator before the quota ran out
      // (src/ratelimit/leases.ts): they are admitted, never more than MAX_LEASE, then the session refuses too.
      let limited = await callTool(tokens.access_token, session, name, valid);
      for (let leased = 0; !limited.isError && leased < MAX_LEASE; leased++)
        limited = await callTool(tokens.access_token, session, name, valid);
      expect(limited.isError).toBe(true);
      expect(limited._meta.retryAfter).toBeGreaterThan(0);
      expectations.push({ name, args: valid, outcome: "rate-limited", correlationId: limited._meta.correlationId });
    }
    // The session's outbox drains in order: once the last call's record is stored, every earlier one is too.
    expect(await recordsOf("acme", expectations.at(-1)!.correlationId!)).toHaveLength(1);
    for (const expected of expectations) {
      expect(expected.correlationId).toEqual(expect.any(String));
      const records = await storedRecordsOf("acme", expected.correlationId!);
      expect(records, `${expected.name} ${expected.outcome}`).toHaveLength(1);
      expect(records[0]).toMatchObject({
        organizationId: "acme",
        userId: "ana",
        clientId: client.client_id,
        kind: "tool",
        target: expected.name,
        outcome: expected.outcome,
        argumentsDigest: await digestArguments(expected.args),
      });
    }
  });

  it("keeps tokens and argument values out of every record", async () => {
    const marker = "argument-value-that-must-not-be-stored-7f3a";
    const listed = await callTool(tokens.access_token, session, "audit_events_list", { userId: marker, limit: 1 });
    expect(listed.isError).toBeFalsy();
    expect(await recordsOf("acme", listed._meta.correlationId)).toHaveLength(1);
    // A token where a name belongs: zod's message quotes unknown keys, the record must not.
    const smuggled = await callTool(tokens.access_token, session, "whoami", { [tokens.access_token]: 1 });
    expect(smuggled.isError).toBe(true);
    const [record] = await recordsOf("acme", smuggled._meta.correlationId);
    expect(record).toMatchObject({ outcome: "invalid-input" });
    expect(record!.reason).toContain("[redacted]");

    // A grant with offline_access holds a refresh token: the calls made under it must not record it either.
    const refreshing = (await obtainTokens({ user: "ana", scope: "audit.read offline_access" })).tokens;
    expect(refreshing.refresh_token).toEqual(expect.any(String));
    const underRefreshing = await callTool(
      refreshing.access_token,
      await initializeSession(refreshing.access_token),
      "audit_events_list",
      { limit: 1 },
    );
    expect(underRefreshing.isError).toBeFalsy();

    // Records are stored after the answer (the session's audit outbox): wait for the last one before reading all.
    expect(await recordsOf("acme", underRefreshing._meta.correlationId)).toHaveLength(1);
    const everything = JSON.stringify(await allRecords("acme"));
    expect(everything).toContain(smuggled._meta.correlationId);
    expect(everything).toContain(underRefreshing._meta.correlationId);
    expect(everything).not.toContain(tokens.access_token);
    expect(everything).not.toContain(tokens.access_token.split(":")[2]!);
    expect(everything).not.toContain(refreshing.access_token);
    expect(everything).not.toContain(refreshing.refresh_token!);
    expect(everything).not.toContain(refreshing.refresh_token!.split(":")[2]!);
    expect(everything).not.toContain(marker);
    expect(everything).not.toMatch(/Bearer /i);
  });

  it("lists the caller's organization's events with filters and cursors", async () => {
    const first = await callTool(tokens.access_token, session, "audit_events_list", {
      kind: "tool",
      target: "whoami",
      limit: 2,
    });
    expect(first.isError, first.content[0]?.text).toBeFalsy();
    expect(first.structuredContent.organizationId).toBe("acme");
    expect(first.structuredContent.events).toHaveLength(2);
    expect(first.structuredContent.events.every((e: AuditRecord) => e.target === "whoami" && e.kind === "tool")).toBe(
      true,
    );
    const cursor = first.structuredContent.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const second = await callTool(tokens.access_token, session, "audit_events_list", {
      kind: "tool",
      target: "whoami",
      limit: 2,
      cursor,
    });
    const seen = new Set(first.structuredContent.events.map((e: AuditRecord) => e.correlationId));
    for (const event of second.structuredContent.events as AuditRecord[])
      expect(seen.has(event.correlationId)).toBe(false);
    expect(Date.parse(second.structuredContent.events[0].time)).toBeLessThanOrEqual(
      Date.parse(first.structuredContent.events[1].time),
    );

    const otherFilters = await callTool(tokens.access_token, session, "audit_events_list", {
      kind: "tool",
      target: "audit_events_list",
      limit: 2,
      cursor,
    });
    expect(otherFilters.isError).toBe(true);
    expect(otherFilters.content[0]!.text).toContain("different filters");
    const forged = await callTool(tokens.access_token, session, "audit_events_list", { cursor: "not-a-cursor" });
    expect(forged.isError).toBe(true);
    expect(forged.content[0]!.text).toContain("cursor: not a cursor this server issued");
    const backwards = await callTool(tokens.access_token, session, "audit_events_list", {
      from: "2026-02-01T00:00:00Z",
      to: "2026-01-01T00:00:00Z",
    });
    expect(backwards.content[0]!.text).toContain("`from` must be earlier than `to`");
  });

  it("refuses another organization's trail and never shows it", async () => {
    const acmeEvent = await callTool(tokens.access_token, session, "whoami", {});
    const gus = await obtainTokens({ user: "gus", scope: "contracts.read audit.read" });
    const gusSession = await initializeSession(gus.tokens.access_token);

    const refused = await callTool(gus.tokens.access_token, gusSession, "audit_events_list", {
      organizationId: "acme",
    });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain("you can only read the audit trail of your own organization (globex)");
    expect(await recordsOf("globex", refused._meta.correlationId)).toMatchObject([
      { outcome: "rejected-by-policy", organizationId: "globex" },
    ]);

    const own = await callTool(gus.tokens.access_token, gusSession, "audit_events_list", { limit: 100 });
    expect(own.structuredContent.organizationId).toBe("globex");
    expect(own.structuredContent.events.length).toBeGreaterThan(0);
    for (const event of own.structuredContent.events as AuditRecord[]) expect(event.organizationId).toBe("globex");
    const byCorrelation = await callTool(gus.tokens.access_token, gusSession, "audit_events_list", {
      correlationId: acmeEvent._meta.correlationId,
    });
    expect(byCorrelation.structuredContent.events).toEqual([]);

    // Without audit.read the tool is refused outright (the /mcp handler answers the step-up challenge).
    const mia = await obtainTokens({ user: "mia", scope: "orders.read contracts.read" });
    const miaSession = await initializeSession(mia.tokens.access_token);
    const noScope = await mcpPost(
      mia.tokens.access_token,
      { jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name: "audit_events_list", arguments: {} } },
      { "mcp-session-id": miaSession, "mcp-protocol-version": "2025-11-25" },
    );
    expect(noScope.status).toBe(403);
    expect(noScope.headers.get("www-authenticate")).toContain("insufficient_scope");
  });
});
