/**
 * An idle 2025-11-25 session leaves memory (issue 33, "sessions that cost what they hold"): after
 * MCP_SESSION_IDLE_SECONDS without a request, with no connection open, the session object drops its instance; the
 * next request builds it again from its storage and the session answers as before. The idle time is held at 1 s here.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mcpPrincipal } from "../harness";
import { initializeSession, rpc, sessionObject } from "../helpers";

const vars = env as { MCP_SESSION_IDLE_SECONDS?: string; AUDIT_DRAIN_DELAY_SECONDS?: string };
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A mark on the live instance: gone once the instance left memory. */
const marks = new WeakSet<object>();

describe("an idle session", () => {
  it("leaves memory after the idle time and answers from its storage on the next request", async () => {
    const before = { idle: vars.MCP_SESSION_IDLE_SECONDS, drain: vars.AUDIT_DRAIN_DELAY_SECONDS };
    vars.MCP_SESSION_IDLE_SECONDS = "1";
    // A session whose audit records wait for their drain stays until it has run: drained at once here.
    vars.AUDIT_DRAIN_DELAY_SECONDS = "0";
    try {
      const caller = mcpPrincipal("dev", "orders.read");
      const session = await initializeSession(caller);
      const first = await rpc(caller, session, "tools/call", { name: "whoami", arguments: {} }, 2);
      expect(first.result.isError).toBeFalsy();
      await runInDurableObject(sessionObject(session), (instance) => {
        marks.add(instance);
      });
      // Still the same instance while a request came within the idle time.
      expect(await runInDurableObject(sessionObject(session), (instance) => marks.has(instance))).toBe(true);
      // The idle check is one of the session's schedules (an alarm, which also fires by itself): within a few
      // seconds of the last request the instance is gone.
      // The instance leaves by aborting itself: a call into it that is under way then fails with the abort's
      // reason, which says the same as finding a fresh instance.
      const leftMemory = (error: unknown) => {
        if (error instanceof Error && error.message.includes("idle MCP session left memory")) return false;
        throw error;
      };
      let held = true;
      for (let attempt = 0; attempt < 40 && held; attempt++) {
        await pause(150);
        held = await runDurableObjectAlarm(sessionObject(session))
          .then(() => runInDurableObject(sessionObject(session), (instance) => marks.has(instance)))
          .catch(leftMemory);
      }
      expect(held).toBe(false);
      const again = await rpc(caller, session, "tools/call", { name: "whoami", arguments: {} }, 3);
      expect(again.result.isError).toBeFalsy();
      // The same caller, and the same rate window, one call further: nothing the session held was lost.
      const { quotas: quotasBefore, ...who } = first.result.structuredContent;
      const { quotas: quotasAfter, ...whoAgain } = again.result.structuredContent;
      expect(whoAgain).toEqual(who);
      const whoami = (quotas: Array<{ tool: string; remaining: number }>) => quotas.find((q) => q.tool === "whoami");
      expect(whoami(quotasAfter)?.remaining).toBe((whoami(quotasBefore)?.remaining ?? 0) - 1);
    } finally {
      vars.MCP_SESSION_IDLE_SECONDS = before.idle;
      vars.AUDIT_DRAIN_DELAY_SECONDS = before.drain;
    }
  });
});
