/**
 * A 2025-11-25 session its client left behind does not keep its storage forever (issue 33, storage that grows):
 * MCP_SESSION_TTL_SECONDS after its client's last request it ends as DELETE ends it. Its object's storage goes,
 * the records of its last calls reach the audit store first, and the id answers 404 so the client starts anew.
 * The TTL is shortened to 1-2 s here once a session is open, and the session's scheduled check is run directly.
 */
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { auditTrailIn } from "../../../src/audit/trail";
import { mcpPrincipal } from "../harness";
import { initializeSession, mcpPost, rpc, sessionObject } from "../helpers";

const vars = env as { MCP_SESSION_TTL_SECONDS?: string; AUDIT_DRAIN_DELAY_SECONDS?: string };
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Runs `body` with the records held in the outbox for a minute (only the end of the session can store them) and a
 * way to shorten the TTL. Sessions are opened under the default TTL, so their scheduled check is days away and never
 * runs by itself during the test; the shortened TTL is what the check, run directly, then reads.
 */
async function withShortTtl(body: (shorten: (seconds: number) => void) => Promise<void>): Promise<void> {
  const before = { ttl: vars.MCP_SESSION_TTL_SECONDS, drain: vars.AUDIT_DRAIN_DELAY_SECONDS };
  vars.AUDIT_DRAIN_DELAY_SECONDS = "60";
  try {
    await body((seconds) => {
      vars.MCP_SESSION_TTL_SECONDS = String(seconds);
    });
  } finally {
    vars.MCP_SESSION_TTL_SECONDS = before.ttl;
    vars.AUDIT_DRAIN_DELAY_SECONDS = before.drain;
  }
}

const whoami = (caller: ReturnType<typeof mcpPrincipal>, session: string, id: number) =>
  rpc(caller, session, "tools/call", { name: "whoami", arguments: {} }, id);

describe("a session left without requests", () => {
  it("ends after MCP_SESSION_TTL_SECONDS: 404 for its id, its storage gone, its last records stored", async () => {
    await withShortTtl(async (shorten) => {
      const caller = mcpPrincipal("ana", "orders.read");
      const session = await initializeSession(caller);
      const call = await whoami(caller, session, 2);
      expect(call.result.isError).toBeFalsy();
      const correlationId = call.result._meta.correlationId as string;
      const scheduled = await runInDurableObject(sessionObject(session), (instance) =>
        instance.getSchedules().map((schedule) => schedule.callback),
      );
      expect(scheduled).toContain("endIfAbandoned");

      shorten(1);
      await pause(1_200);
      await runInDurableObject(sessionObject(session), (instance) => instance.endIfAbandoned());

      const after = await mcpPost(
        caller,
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "whoami", arguments: {} } },
        { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
      );
      expect(after.status).toBe(404);
      expect(((await after.json()) as { error: { code: number; message: string } }).error).toMatchObject({
        code: -32001,
        message: expect.stringMatching(/it has ended: closed with DELETE, or left MCP_SESSION_TTL_SECONDS/),
      });
      const audit = auditTrailIn(env.AUDIT_LOG)("acme");
      let stored = 0;
      let keys = -1;
      for (let attempt = 0; attempt < 100 && (stored === 0 || keys !== 0); attempt++) {
        await pause(50);
        stored = (await audit.query("acme", { correlationId, limit: 5 })).events.length;
        keys = await runInDurableObject(sessionObject(session), async (_instance, state) => {
          // Looking wakes the object, and agents' start-up writes its schema version again: the session's own keys
          // (initialize request, owner, props, last request) are what must be gone.
          const listed = await state.storage.list({ limit: 20 });
          return [...listed.keys()].filter((key) => !key.startsWith("cf_agents:")).length;
        }).catch(() => -1);
      }
      expect(stored).toBe(1);
      expect(keys).toBe(0);
    });
  });

  it("goes on while its client keeps sending requests within the TTL", async () => {
    await withShortTtl(async (shorten) => {
      const caller = mcpPrincipal("ana", "orders.read");
      const session = await initializeSession(caller);
      shorten(2);
      await pause(1_200);
      expect((await whoami(caller, session, 2)).result.isError).toBeFalsy();
      await pause(1_200);
      // 2.4 s after initialize, 1.2 s after the last request: not yet abandoned.
      await runInDurableObject(sessionObject(session), (instance) => instance.endIfAbandoned());
      expect((await whoami(caller, session, 3)).result.isError).toBeFalsy();
      const scheduled = await runInDurableObject(sessionObject(session), (instance) =>
        instance.getSchedules().filter((schedule) => schedule.callback === "endIfAbandoned"),
      );
      expect(scheduled.length).toBeGreaterThanOrEqual(1);
    });
  });

  it("a session opened before sessions expired gets its expiry from its next idle check", async () => {
    const caller = mcpPrincipal("ana", "orders.read");
    const session = await initializeSession(caller);
    // As such a session is stored: no expiry scheduled, no last request recorded.
    await runInDurableObject(sessionObject(session), async (instance, state) => {
      for (const schedule of instance.getSchedules().filter((each) => each.callback === "endIfAbandoned"))
        await instance.cancelSchedule(schedule.id);
      await state.storage.delete("arbiter:last-request");
    });
    await evictDurableObject(sessionObject(session));
    // Its pending idle check runs in a fresh instance that no request has reached.
    const scheduled = await runInDurableObject(sessionObject(session), async (instance) => {
      await instance.leaveMemoryWhenIdle();
      return instance.getSchedules().map((schedule) => schedule.callback);
    });
    expect(scheduled).toContain("endIfAbandoned");
  });
});
