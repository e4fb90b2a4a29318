// The compatibility front of /mcp (src/mcp/compat/): one test per tolerance that fails without its rule, the
// specification's errors the rules must leave in place, and the counts an organization administrator reads.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { auditTrailIn } from "../../../src/audit/trail";
import type { Env } from "../../../src/env";
import { getRateLimitPolicy, quotaFor } from "../../../src/ratelimit/policy";
import { TOLERANCES } from "../../../src/mcp/compat/tolerances";
import {
  MAX_ROWS,
  MAX_ROWS_PER_CLIENT,
  OTHER_CLIENT,
  OTHER_KIND,
  ToleranceCounter,
} from "../../../src/mcp/compat/counter-store";
import { recordTolerated } from "../../../src/mcp/compat/report";
import { fetchAs, mcpPrincipal, restPrincipal } from "../harness";
import { initializeSession, MODERN_ENVELOPE, MODERN_ERA, mcpPost, readRpc, registerClient } from "../helpers";

const workerEnv = env as unknown as Env;
const call = (id = 2) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "whoami", arguments: {} } });
const modernCall = (meta: Record<string, unknown> = MODERN_ENVELOPE) => ({
  jsonrpc: "2.0",
  id: 3,
  method: "tools/call",
  params: { name: "whoami", arguments: {}, _meta: meta },
});

async function whoamiOf(response: Response): Promise<Record<string, any> | undefined> {
  const messages = await readRpc(response);
  return messages.find((message) => message.id !== undefined)?.result?.structuredContent;
}

describe("tolerance envelope-with-session-era-header (claude.ai connectors)", () => {
  it("serves a 2026-07-28 envelope whose header names 2025-11-25 by the envelope", async () => {
    const token = mcpPrincipal("ana", "orders.read contracts.read");
    const response = await mcpPost(token, modernCall(), {
      "MCP-Protocol-Version": "2025-11-25",
      "Mcp-Method": "tools/call",
      "Mcp-Name": "whoami",
    });
    expect(response.status).toBe(200);
    expect(await whoamiOf(response)).toMatchObject({ organization: { id: "acme" } });
  });

  it("keeps the spec's errors: an unknown header with an envelope, and an envelope naming an unsupported version", async () => {
    const token = mcpPrincipal("ana", "orders.read contracts.read");
    const unknownHeader = await mcpPost(token, modernCall(), {
      "MCP-Protocol-Version": "2031-01-01",
      "Mcp-Method": "tools/call",
      "Mcp-Name": "whoami",
    });
    expect(unknownHeader.status).toBe(400);
    const unsupported = await mcpPost(
      token,
      modernCall({ ...MODERN_ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" }),
      { "MCP-Protocol-Version": "2025-11-25" },
    );
    const [error] = await readRpc(unsupported);
    expect(error?.error?.message ?? "").toMatch(/version/i);
    expect(error?.result).toBeUndefined();
  });
});

describe("tolerance session-with-other-version-header (claude.ai after initialize)", () => {
  it("reads a 2026-07-28 header on a session request as the session's negotiated version", async () => {
    const token = mcpPrincipal("ana", "orders.read contracts.read");
    const sessionId = await initializeSession(token);
    const response = await mcpPost(token, call(), { "mcp-session-id": sessionId, "mcp-protocol-version": MODERN_ERA });
    expect(response.status).toBe(200);
    expect(await whoamiOf(response)).toMatchObject({ userId: "ana" });
  });

  it("still refuses an unknown version (400) and an unknown session (404)", async () => {
    const token = mcpPrincipal("ana", "orders.read contracts.read");
    const sessionId = await initializeSession(token);
    expect(
      (await mcpPost(token, call(), { "mcp-session-id": sessionId, "mcp-protocol-version": "2031-01-01" })).status,
    ).toBe(400);
    expect(
      (await mcpPost(token, call(), { "mcp-session-id": "no-such-session", "mcp-protocol-version": "2025-11-25" }))
        .status,
    ).toBe(404);
  });
});

describe("tolerance duplicate-header (proxies, Claude Code)", () => {
  it("collapses identical comma-joined copies in both eras", async () => {
    const token = mcpPrincipal("ana", "orders.read contracts.read");
    const sessionId = await initializeSession(token);
    const legacy = await mcpPost(token, call(), {
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-11-25, 2025-11-25",
    });
    expect(legacy.status).toBe(200);
    expect(await whoamiOf(legacy)).toMatchObject({ userId: "ana" });
    const modern = await mcpPost(token, modernCall(), {
      "MCP-Protocol-Version": `${MODERN_ERA}, ${MODERN_ERA}`,
      "Mcp-Method": "tools/call",
      "Mcp-Name": "whoami",
    });
    expect(modern.status).toBe(200);
    expect(await whoamiOf(modern)).toMatchObject({ userId: "ana" });
  });

  it("answers conflicting copies with a clear 400 naming both", async () => {
    const token = mcpPrincipal("ana", "orders.read contracts.read");
    const response = await mcpPost(token, call(), { "mcp-protocol-version": "2025-11-25, 2025-06-18" });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain("2025-11-25, 2025-06-18");
  });
});

describe("tolerance sessionless-session-request (claude.ai, ChatGPT)", () => {
  it("serves tools/list and tools/call without a session id, governed (scopes: 403 step-up)", async () => {
    const token = mcpPrincipal("ana", "orders.read contracts.read");
    const listed = await mcpPost(
      token,
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { "mcp-protocol-version": "2025-11-25" },
    );
    expect(listed.status).toBe(200);
    const [list] = await readRpc(listed);
    expect(((list?.result?.tools ?? []) as Array<{ name: string }>).map((tool) => tool.name)).toContain("whoami");
    const called = await mcpPost(token, call(), { "mcp-protocol-version": "2025-11-25" });
    expect(await whoamiOf(called)).toMatchObject({ userId: "ana", organization: { id: "acme" } });
    const refused = await mcpPost(mcpPrincipal("ana", "contracts.read"), {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "audit_events_list", arguments: {} },
    });
    expect(refused.status).toBe(403);
  });

  it("rate limits and audits session-less tools/call like any other (one record per call, the same correlation id)", async () => {
    const quota = quotaFor(getRateLimitPolicy(), "acme", "whoami");
    const caller = mcpPrincipal("ana", "orders.read contracts.read");
    let refused: Record<string, any> | undefined;
    let lastCorrelation: string | null = null;
    for (let i = 0; i <= quota.limit; i++) {
      const response = await mcpPost(caller, call(100 + i), { "mcp-protocol-version": "2025-11-25" });
      lastCorrelation = response.headers.get("x-correlation-id");
      const [message] = await readRpc(response);
      if (i === quota.limit) refused = message?.result;
    }
    expect(refused?.isError).toBe(true);
    expect(JSON.stringify(refused?.content)).toContain("Rate limit reached");
    const store = auditTrailIn(workerEnv.AUDIT_LOG)("acme");
    let events: Array<{ outcome: string; correlationId: string }> = [];
    for (let wait = 0; wait < 50 && events.length < quota.limit + 1; wait++) {
      events = (await store.query("acme", { clientId: caller.auth.clientId, limit: 100 })).events;
      if (events.length < quota.limit + 1) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(events).toHaveLength(quota.limit + 1);
    expect(events.filter((event) => event.outcome === "rate-limited")).toHaveLength(1);
    expect(events.map((event) => event.correlationId)).toContain(lastCorrelation);
  });

  it("answers a notification without a session with 202, and still opens a session on initialize", async () => {
    const token = mcpPrincipal("ana", "orders.read contracts.read");
    const notified = await mcpPost(token, { jsonrpc: "2.0", method: "notifications/initialized" });
    expect(notified.status).toBe(202);
    expect(await initializeSession(token)).toMatch(/\S/);
  });
});

describe("tolerance modern-header-session-era-body (claude.ai's OAuth client only)", () => {
  const legacyList = { jsonrpc: "2.0", id: 7, method: "tools/list", params: {} };
  const modernHeader = { "MCP-Protocol-Version": MODERN_ERA };

  it("serves claude.ai's session-less requests with a 2026-07-28 header and a 2025-style body, counted", async () => {
    for (const callback of ["https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"]) {
      const claude = await registerClient({ client_name: "Claude", redirect_uris: [callback] });
      const token = mcpPrincipal("ana", "orders.read contracts.read", { clientId: claude.client_id });
      const listed = await mcpPost(token, legacyList, { ...modernHeader, "User-Agent": "Claude-User" });
      expect(listed.status, callback).toBe(200);
      const [list] = await readRpc(listed);
      expect(((list?.result?.tools ?? []) as Array<{ name: string }>).map((tool) => tool.name)).toContain("whoami");
      const called = await mcpPost(token, call(8), { ...modernHeader, "User-Agent": "Claude-User" });
      expect(await whoamiOf(called)).toMatchObject({ userId: "ana", organization: { id: "acme" } });
      const notified = await mcpPost(token, { jsonrpc: "2.0", method: "notifications/initialized" }, modernHeader);
      expect(notified.status).toBe(202);
    }
    const { counts } = await workerEnv.TOLERANCE_COUNTER.get(workerEnv.TOLERANCE_COUNTER.idFromName("acme")).report();
    expect(
      counts.find(
        (row) =>
          row.rule === "modern-header-session-era-body" && row.client === "Claude-User" && row.kind === "tools/call",
      )?.count,
    ).toBeGreaterThanOrEqual(2);
  });

  it("keeps the specification's 400 / -32602 for every other client, and governs claude.ai's like any request", async () => {
    const other = await registerClient({
      client_name: "Other",
      redirect_uris: ["https://claude.ai.example.com/api/mcp/auth_callback"],
    });
    for (const token of [
      mcpPrincipal("ana", "orders.read contracts.read", { clientId: other.client_id }),
      mcpPrincipal("ana", "orders.read contracts.read"),
    ]) {
      const refused = await mcpPost(token, legacyList, modernHeader);
      expect(refused.status).toBe(400);
      const [error] = await readRpc(refused);
      expect(error?.error?.code).toBe(-32602);
    }
    const claude = await registerClient({
      client_name: "Claude",
      redirect_uris: ["https://claude.ai/api/mcp/auth_callback"],
    });
    const narrow = mcpPrincipal("ana", "contracts.read", { clientId: claude.client_id });
    const stepUp = await mcpPost(
      narrow,
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "audit_events_list", arguments: {} } },
      modernHeader,
    );
    expect(stepUp.status).toBe(403);
    // An initialize, a session request and an enveloped request are not this pattern: each keeps its own path.
    const sessionId = await initializeSession(narrow);
    expect((await mcpPost(narrow, legacyList, { ...modernHeader, "mcp-session-id": sessionId })).status).toBe(200);
    expect(
      (await mcpPost(narrow, modernCall(), { ...modernHeader, "Mcp-Method": "tools/call", "Mcp-Name": "whoami" }))
        .status,
    ).toBe(200);
  });

  it("recognises claude.ai's Client ID Metadata Document URL without a look-up", async () => {
    const token = mcpPrincipal("ana", "orders.read contracts.read", {
      clientId: "https://claude.ai/oauth/mcp-oauth-client-metadata",
    });
    const called = await mcpPost(token, call(11), modernHeader);
    expect(await whoamiOf(called)).toMatchObject({ userId: "ana" });
  });
});

describe("tolerance json-only-accept (claude.ai, Claude Code)", () => {
  for (const accept of ["*/*", "application/json"]) {
    it(`answers Accept: ${accept} with one JSON body, in a session and without`, async () => {
      const token = mcpPrincipal("ana", "orders.read contracts.read");
      const init = await mcpPost(
        token,
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "json-only", version: "1" } },
        },
        { Accept: accept },
      );
      expect(init.status).toBe(200);
      expect(init.headers.get("content-type")).toMatch(/^application\/json/);
      const sessionId = init.headers.get("mcp-session-id")!;
      expect(((await init.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe(
        "2025-11-25",
      );
      const inSession = await mcpPost(token, call(), {
        Accept: accept,
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-11-25",
      });
      expect(inSession.headers.get("content-type")).toMatch(/^application\/json/);
      expect(
        ((await inSession.json()) as { result: { structuredContent: unknown } }).result.structuredContent,
      ).toMatchObject({ userId: "ana" });
    });
  }
});

describe("server/discover", () => {
  it("lists every version /mcp serves: 2026-07-28 and the session era's", async () => {
    const token = mcpPrincipal("ana", "orders.read contracts.read");
    const response = await mcpPost(
      token,
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: MODERN_ENVELOPE } },
      { "MCP-Protocol-Version": MODERN_ERA, "Mcp-Method": "server/discover" },
    );
    const [answer] = await readRpc(response);
    expect(answer?.result?.supportedVersions).toEqual([
      "2026-07-28",
      "2025-11-25",
      "2025-06-18",
      "2025-03-26",
      "2024-11-05",
      "2024-10-07",
    ]);
  });
});

describe("counts and the tolerance table", () => {
  it("counts each tolerated request per rule, client and kind, for the organization's administrators", async () => {
    const token = mcpPrincipal("ana", "orders.read contracts.read");
    for (let i = 0; i < 2; i++)
      await mcpPost(token, call(10 + i), { "mcp-protocol-version": "2025-11-25", "User-Agent": "openai-mcp/1.0.0" });
    const { counts } = await workerEnv.TOLERANCE_COUNTER.get(workerEnv.TOLERANCE_COUNTER.idFromName("acme")).report();
    const row = counts.find(
      (entry) =>
        entry.rule === "sessionless-session-request" &&
        entry.client === "openai-mcp/1.0.0" &&
        entry.kind === "tools/call",
    );
    expect(row?.count).toBeGreaterThanOrEqual(2);
    const api = await fetchAs(restPrincipal("ana", "audit.read"), "/api/v1/mcp/tolerances");
    expect(api.status).toBe(200);
    const listed = (await api.json()) as {
      tolerances: Array<{ id: string }>;
      counts: Array<{ rule: string; client: string; count: number }>;
    };
    expect(listed.tolerances.map((tolerance) => tolerance.id)).toEqual(TOLERANCES.map((tolerance) => tolerance.id));
    expect(
      listed.counts.find((entry) => entry.rule === "sessionless-session-request" && entry.client === "openai-mcp/1.0.0")
        ?.count,
    ).toBeGreaterThanOrEqual(2);
  });

  it("counts a tolerated deviation whichever step of the front answers the request", async () => {
    // The duplicate header is tolerated by the compatibility step; the session-id step after it refuses the id.
    const token = mcpPrincipal("ana", "orders.read contracts.read");
    const refused = await mcpPost(token, call(), {
      "mcp-protocol-version": "2025-11-25, 2025-11-25",
      "mcp-session-id": "s".repeat(300),
      "User-Agent": "refused-after-tolerance/1.0",
    });
    expect(refused.status).toBe(404);
    const counter = workerEnv.TOLERANCE_COUNTER.get(workerEnv.TOLERANCE_COUNTER.idFromName("acme"));
    await vi.waitFor(
      async () => {
        const { counts } = await counter.report();
        const row = counts.find((entry) => entry.client === "refused-after-tolerance/1.0");
        expect(row).toMatchObject({ rule: "duplicate-header", kind: "tools/call", count: 1 });
      },
      { timeout: 3000, interval: 50 },
    );
  });

  it("keeps one token's made-up methods and client names from growing the table or crowding out other clients", async () => {
    const organizationId = "tolerance-flood";
    const counter = workerEnv.TOLERANCE_COUNTER.get(workerEnv.TOLERANCE_COUNTER.idFromName(organizationId));
    const rule = "sessionless-session-request" as const;
    // Through the front: invented JSON-RPC methods all count under the kind "other".
    const token = mcpPrincipal("ana", "orders.read contracts.read");
    for (let i = 0; i < 3; i++)
      await mcpPost(
        token,
        { jsonrpc: "2.0", id: 40 + i, method: `made/up-${i}`, params: {} },
        { "mcp-protocol-version": "2025-11-25", "User-Agent": "flooder/1.0" },
      );
    const fromFront = (
      await workerEnv.TOLERANCE_COUNTER.get(workerEnv.TOLERANCE_COUNTER.idFromName("acme")).report()
    ).counts.filter((row) => row.client === "flooder/1.0");
    expect(fromFront.map((row) => row.kind)).toEqual(["other"]);
    expect(fromFront[0]!.count).toBeGreaterThanOrEqual(3);

    // One OAuth client inventing client names opens at most MAX_ROWS_PER_CLIENT rows; the rest share one overflow row.
    for (let i = 0; i < MAX_ROWS_PER_CLIENT + 30; i++)
      await recordTolerated(workerEnv, {
        organizationId,
        oauthClientId: "flooding-client",
        client: `fake-${i}`,
        kind: "tools/call",
        rules: [rule],
      });
    let counts = (await counter.report()).counts;
    expect(counts.filter((row) => row.client !== OTHER_CLIENT)).toHaveLength(MAX_ROWS_PER_CLIENT);
    expect(counts.filter((row) => row.client === OTHER_CLIENT)).toEqual([
      expect.objectContaining({ rule, kind: OTHER_KIND, count: 30 }),
    ]);

    // A real client of another OAuth client still gets its own row.
    await recordTolerated(workerEnv, {
      organizationId,
      oauthClientId: "claude-connector",
      client: "claude-ai",
      kind: "tools/call",
      rules: [rule],
    });
    counts = (await counter.report()).counts;
    expect(counts.find((row) => row.client === "claude-ai")?.count).toBe(1);

    // Many OAuth clients together still stop at MAX_ROWS named rows plus the overflow row.
    const at = new Date().toISOString();
    for (let i = 0; i < MAX_ROWS + 40; i++) await counter.record(rule, `named-${i}`, "tools/call", at, `client-${i}`);
    counts = (await counter.report()).counts;
    expect(counts.filter((row) => row.client !== OTHER_CLIENT)).toHaveLength(MAX_ROWS);
    expect(counts.filter((row) => row.client === OTHER_CLIENT)).toHaveLength(1);
  });

  it("upgrades a counter table of the previous layout in place: its rows kept, counted on, and capped as before", async () => {
    const stub = workerEnv.TOLERANCE_COUNTER.get(workerEnv.TOLERANCE_COUNTER.idFromName("tolerance-upgrade"));
    await runInDurableObject(stub, async (_instance: ToleranceCounter, state) => {
      state.storage.sql.exec("DROP TABLE tolerated");
      state.storage.sql.exec(
        "CREATE TABLE tolerated (rule TEXT NOT NULL, client TEXT NOT NULL, kind TEXT NOT NULL, count INTEGER NOT NULL, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL, PRIMARY KEY (rule, client, kind))",
      );
      state.storage.sql.exec(
        "INSERT INTO tolerated VALUES ('json-only-accept', 'openai-mcp/1.0.0', 'tools/call', 7, '2026-11-01T00:00:00.000Z', '2026-11-02T00:00:00.000Z')",
      );
      const upgraded = new ToleranceCounter(state, workerEnv);
      expect(
        await upgraded.record(
          "json-only-accept",
          "openai-mcp/1.0.0",
          "tools/call",
          "2026-12-03T00:00:00.000Z",
          "chatgpt",
        ),
      ).toBe(false);
      expect(
        await upgraded.record("json-only-accept", "claude-ai", "tools/call", "2026-12-03T00:00:00.000Z", "claude"),
      ).toBe(true);
      expect((await upgraded.report()).counts).toEqual([
        {
          rule: "json-only-accept",
          client: "openai-mcp/1.0.0",
          kind: "tools/call",
          count: 8,
          firstSeen: "2026-11-01T00:00:00.000Z",
          lastSeen: "2026-12-03T00:00:00.000Z",
        },
        {
          rule: "json-only-accept",
          client: "claude-ai",
          kind: "tools/call",
          count: 1,
          firstSeen: "2026-12-03T00:00:00.000Z",
          lastSeen: "2026-12-03T00:00:00.000Z",
        },
      ]);
    });
  });
});
