/**
 * Ending a 2025-11-25 session never erases the audit records of its calls (issue 37, finding 1). A call's record
 * waits in the session object's outbox for the drain; DELETE /mcp makes agents destroy the object about a second
 * later, which deletes its storage. The session's destroy() empties the outbox first: into the audit store, or into
 * the log in full when the store cannot take it. The drain delay is held at 60 s here, so only that last drain can
 * have stored what these tests find.
 */
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuditRecord } from "../../../src/audit/record";
import { auditTrailIn } from "../../../src/audit/trail";
import type { ArbiterMcpAgent } from "../../../src/mcp/session/agent";
import { fetchAs, mcpPrincipal, type Verified } from "../harness";
import { initializeSession, MCP_URL, rpc, sessionObject } from "../helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const vars = env as { AUDIT_DRAIN_DELAY_SECONDS?: string };

async function withDrainDelay(seconds: number, body: () => Promise<void>): Promise<void> {
  const before = vars.AUDIT_DRAIN_DELAY_SECONDS;
  vars.AUDIT_DRAIN_DELAY_SECONDS = String(seconds);
  try {
    await body();
  } finally {
    vars.AUDIT_DRAIN_DELAY_SECONDS = before;
  }
}

const storedIn = async (organizationId: string, correlationId: string) =>
  (await auditTrailIn(env.AUDIT_LOG)(organizationId).query(organizationId, { correlationId, limit: 10 })).events;
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function endSession(caller: Verified, session: string): Promise<void> {
  const deleted = await fetchAs(caller, MCP_URL, {
    method: "DELETE",
    headers: { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
  });
  expect(deleted.status).toBe(204);
}

/** Waits for every record to reach the store (agents destroys the object from an alarm about a second after DELETE). */
async function expectStored(organizationId: string, correlationIds: readonly string[]): Promise<AuditRecord[]> {
  let found: AuditRecord[] = [];
  for (let attempt = 0; attempt < 150; attempt++) {
    found = (await Promise.all(correlationIds.map((id) => storedIn(organizationId, id)))).flat();
    if (found.length >= correlationIds.length) break;
    await pause(50);
  }
  expect(found.map((record) => record.correlationId).sort()).toEqual([...correlationIds].sort());
  return found;
}

async function callsThenEnd(options: {
  user: string;
  scope: string;
  tool: string;
  args: Record<string, unknown>;
  calls: number;
  endAfterMs: number;
  evictFirst?: boolean;
}): Promise<string[]> {
  const caller = mcpPrincipal(options.user, options.scope);
  const session = await initializeSession(caller);
  const ids: string[] = [];
  for (let call = 0; call < options.calls; call++) {
    const reply = await rpc(caller, session, "tools/call", { name: options.tool, arguments: options.args }, 10 + call);
    expect(reply.result.isError).toBeFalsy();
    ids.push(reply.result._meta.correlationId as string);
  }
  for (const id of ids) expect(await storedIn("acme", id)).toHaveLength(0);
  if (options.endAfterMs > 0) await pause(options.endAfterMs);
  if (options.evictFirst) await evictDurableObject(sessionObject(session));
  await endSession(caller, session);
  return ids;
}

describe("ending a session keeps its audit records", () => {
  it("DELETE right after five calls: all five records reach the audit store", async () => {
    await withDrainDelay(60, async () => {
      const ids = await callsThenEnd({
        user: "ana",
        scope: "orders.read",
        tool: "whoami",
        args: {},
        calls: 5,
        endAfterMs: 0,
      });
      const records = await expectStored("acme", ids);
      expect(records.every((record) => record.target === "whoami" && record.outcome === "ok")).toBe(true);
    });
  });

  it("DELETE one and three seconds after the last call: every record is kept", async () => {
    await withDrainDelay(60, async () => {
      await expectStored(
        "acme",
        await callsThenEnd({
          user: "ana",
          scope: "orders.read",
          tool: "whoami",
          args: {},
          calls: 2,
          endAfterMs: 1_000,
        }),
      );
      await expectStored(
        "acme",
        await callsThenEnd({
          user: "ana",
          scope: "orders.read",
          tool: "whoami",
          args: {},
          calls: 2,
          endAfterMs: 3_000,
        }),
      );
    });
  });

  it("an administrator's unmasked reads of personal data, then DELETE: each read is on record", async () => {
    await withDrainDelay(60, async () => {
      const ids = await callsThenEnd({
        user: "ana",
        scope: "orders.read orders.pii",
        tool: "orders_get_by_id",
        args: { id: "ord_1001" },
        calls: 3,
        endAfterMs: 0,
      });
      const records = await expectStored("acme", ids);
      expect(records.every((record) => record.target === "orders_get_by_id")).toBe(true);
    });
  });

  it("a session object evicted after its calls still hands its records over when it ends", async () => {
    await withDrainDelay(60, async () => {
      await expectStored(
        "acme",
        await callsThenEnd({
          user: "ana",
          scope: "orders.read",
          tool: "whoami",
          args: {},
          calls: 3,
          endAfterMs: 0,
          evictFirst: true,
        }),
      );
    });
  });

  it("logs every waiting record in full (stored: false) when the audit store fails as the session is destroyed", async () => {
    const log = vi.spyOn(console, "log");
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const caller = mcpPrincipal("ana", "orders.read");
    const session = await initializeSession(caller);
    const ids: string[] = [];
    await withDrainDelay(60, async () => {
      for (let call = 0; call < 2; call++)
        ids.push(
          (await rpc(caller, session, "tools/call", { name: "whoami", arguments: {} }, 30 + call)).result._meta
            .correlationId as string,
        );
    });
    await runInDurableObject(sessionObject(session), async (instance: ArbiterMcpAgent) => {
      // The object's own env, with an audit namespace whose every store refuses.
      const failing = {
        ...(Reflect.get(instance, "env") as object),
        AUDIT_LOG: {
          idFromName: () => ({}),
          get: () => ({ appendBatch: async () => Promise.reject(new Error("audit store unavailable")) }),
        },
      };
      Object.defineProperty(instance, "env", { value: failing });
      await instance.destroy().catch(() => undefined);
    });
    for (const id of ids) {
      const lines = log.mock.calls
        .map((call) => String(call[0]))
        .filter((line) => line.includes('"event":"audit"') && line.includes(id));
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        event: "audit",
        correlationId: id,
        target: "whoami",
        stored: false,
      });
      expect(await storedIn("acme", id)).toHaveLength(0);
    }
  });
});
