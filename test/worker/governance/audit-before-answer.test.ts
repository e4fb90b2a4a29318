/**
 * A governed call answers only once its audit record is safe (issue 37, finding 1, the stateless lane): stored in the
 * organization's audit store, or logged in full with `stored: false` when the store cannot take it. Nothing of the
 * record is left in an isolate's memory after the answer, so an isolate that dies after answering loses nothing.
 * The 2025-11-25 session lane writes into its own outbox before answering (audit-outbox.test.ts,
 * audit-session-end.test.ts); the last test follows one of its calls to the store.
 */
import { env } from "cloudflare:test";
import { SELF } from "../self";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuditRecord } from "../../../src/audit/record";
import { StoringAuditSink } from "../../../src/audit/sink";
import { auditTrailIn } from "../../../src/audit/trail";
import type { AuditBatchAppender } from "../../../src/audit/write-groups";
import type { AuditDelivery } from "../../../src/audit/store-rpc";
import type { CallContext } from "../../../src/mcp/context";
import type { Principal } from "../../../src/core/principal";
import { runToolCall } from "../../../src/mcp/pipeline";
import { getCatalog } from "../../../src/mcp/deployment-catalog";
import { unlimited } from "../../../src/ratelimit/hook";
import { initializeSession, MCP_URL, obtainTokens, rpc } from "../helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const principal: Principal = {
  organizationId: "durable-org",
  userId: "ana",
  clientId: "client-durable",
  role: "admin",
  scopes: [],
};
const context = (): Omit<CallContext, "correlationId"> => ({
  principal,
  env,
  session: { get: async () => undefined, put: async () => undefined },
  signal: new AbortController().signal,
  progress: async () => undefined,
});
const whoami = () => getCatalog().tools.get("whoami")!;

/** The real audit store, with each append held until `release()`. */
function heldStore() {
  let release!: () => void;
  const gate = new Promise<void>((done) => (release = done));
  let appends = 0;
  const real = auditTrailIn(env.AUDIT_LOG);
  const lookup = (organizationId: string): AuditBatchAppender => ({
    async appendBatch(deliveries: AuditDelivery[]) {
      appends++;
      await gate;
      return real(organizationId).appendBatch(deliveries);
    },
  });
  return { lookup, release, appends: () => appends };
}

const storedIn = async (organizationId: string, correlationId: string) =>
  (await auditTrailIn(env.AUDIT_LOG)(organizationId).query(organizationId, { correlationId, limit: 10 })).events;

function auditLines(spy: { mock: { calls: unknown[][] } }, correlationId: string): Array<Record<string, unknown>> {
  return spy.mock.calls
    .map((call) => String(call[0]))
    .filter((line) => line.includes('"event":"audit"') && line.includes(correlationId))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const envelope = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** One stateless (2026-07-28) tools/call of whoami through the Worker. */
async function statelessWhoami(token: string): Promise<string> {
  const response = await SELF.fetch(MCP_URL, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": "whoami",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "whoami", arguments: {}, _meta: envelope },
    }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { _meta: { correlationId: string } } }).result._meta.correlationId;
}

describe("audit records safe before the answer", () => {
  it("holds the answer until the store has the record, then stores exactly one", async () => {
    const store = heldStore();
    const answered = runToolCall(whoami(), {}, context(), {
      audit: new StoringAuditSink(store.lookup),
      rateLimiter: unlimited,
    });
    let settled = false;
    void answered.finally(() => (settled = true));
    // The call reaches the store however long that takes on a loaded machine; the answer then waits on the store.
    await expect.poll(store.appends, { timeout: 10_000 }).toBe(1);
    await new Promise((done) => setTimeout(done, 100));
    expect(settled, "answered before the store had the record").toBe(false);
    store.release();
    const result = await answered;
    const records = await storedIn(principal.organizationId, result._meta.correlationId as string);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ target: "whoami", outcome: "ok", kind: "tool", clientId: "client-durable" });
    expect(store.appends()).toBe(1);
  });

  it("logs the full record with stored: false, before answering, when the store fails", async () => {
    const log = vi.spyOn(console, "log");
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const failing = new StoringAuditSink(() => ({
      appendBatch: async (): Promise<never> => {
        throw new Error("Durable Object storage is unavailable");
      },
    }));
    const result = await runToolCall(whoami(), {}, context(), { audit: failing, rateLimiter: unlimited });
    expect(result.isError).toBeFalsy();
    // Already in the log when the answer is back: nothing waits in memory for later.
    const lines = auditLines(log, result._meta.correlationId as string);
    expect(lines).toEqual([
      expect.objectContaining({
        stored: false,
        organizationId: "durable-org",
        clientId: "client-durable",
        target: "whoami",
        outcome: "ok",
      }),
    ]);
  });

  it("a 2026-07-28 stateless call's record is in the store the moment its answer arrives (nothing left to an isolate)", async () => {
    const { tokens, client } = await obtainTokens({ user: "ana", scope: "orders.read" });
    for (let call = 0; call < 3; call++) {
      const correlationId = await statelessWhoami(tokens.access_token);
      // No polling: an isolate that died right after this answer would have lost nothing.
      const records = await storedIn("acme", correlationId);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ target: "whoami", outcome: "ok", clientId: client.client_id });
    }
  });

  it("stores the record of a 2025-11-25 session call (drained from the session's outbox)", async () => {
    const { tokens, client } = await obtainTokens({ user: "ana", scope: "orders.read" });
    const session = await initializeSession(tokens.access_token);
    const reply = await rpc(tokens.access_token, session, "tools/call", { name: "whoami", arguments: {} }, 7);
    const correlationId = reply.result._meta.correlationId as string;
    let records: AuditRecord[] = [];
    for (let attempt = 0; attempt < 400 && records.length === 0; attempt++) {
      records = await storedIn("acme", correlationId);
      if (records.length === 0) await new Promise((done) => setTimeout(done, 25));
    }
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ target: "whoami", outcome: "ok", clientId: client.client_id });
  });
});
