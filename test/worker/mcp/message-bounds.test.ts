// What one POST to /mcp may carry is bounded before the session, and anything over a bound is answered at
// once with a JSON-RPC error naming the limit and its value (issue 9, item 2). Without the bounds, a 16 KB id
// or a 200-ping batch overflows the session transport's per-stream state and is never answered.
import { describe, expect, it } from "vitest";
import { checkMessageBounds, MAX_BATCH_MESSAGES, MAX_JSONRPC_ID_CHARS } from "../../../src/mcp/front/message-bounds";
import { mcpPrincipal } from "../harness";
import { initializeSession, mcpPost, readRpc, rpc } from "../helpers";

const VERSION = { "mcp-protocol-version": "2025-11-25" };

/** Fails the test if the Worker takes longer than a few seconds to answer (today's failure is no answer at all). */
async function answeredWithin<T>(ms: number, pending: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([pending, late]);
  } finally {
    if (timer !== null) clearTimeout(timer);
  }
}

describe("checkMessageBounds", () => {
  it("accepts numeric ids, notifications and ids and batches at the bounds", () => {
    expect(checkMessageBounds({ jsonrpc: "2.0", id: 1e300, method: "ping" })).toBeUndefined();
    expect(checkMessageBounds({ jsonrpc: "2.0", method: "notifications/initialized" })).toBeUndefined();
    expect(
      checkMessageBounds(
        Array.from({ length: MAX_BATCH_MESSAGES }, () => ({
          jsonrpc: "2.0",
          id: "x".repeat(MAX_JSONRPC_ID_CHARS),
          method: "ping",
        })),
      ),
    ).toBeUndefined();
  });

  it("names the bound, its value and what the body carried", () => {
    expect(
      checkMessageBounds({ jsonrpc: "2.0", id: "x".repeat(MAX_JSONRPC_ID_CHARS + 1), method: "ping" }),
    ).toMatchObject({ bound: "id-length", limit: 256, actual: 257 });
    expect(
      checkMessageBounds(
        Array.from({ length: MAX_BATCH_MESSAGES + 1 }, (_, id) => ({ jsonrpc: "2.0", id, method: "ping" })),
      ),
    ).toMatchObject({ bound: "batch-length", limit: 25, actual: 26 });
    expect(
      checkMessageBounds([
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: "y".repeat(300), method: "ping" },
      ]),
    ).toMatchObject({ bound: "id-length", actual: 300 });
  });
});

describe("POST /mcp over a bound", () => {
  it("a 16 KB id is answered at once with 400 -32600 naming the id limit, and the session still works", async () => {
    const token = mcpPrincipal("ana", "orders.read");
    const session = await initializeSession(token);
    const res = await answeredWithin(
      5_000,
      mcpPost(
        token,
        { jsonrpc: "2.0", id: "i".repeat(16 * 1024), method: "ping" },
        { "mcp-session-id": session, ...VERSION },
      ),
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, data: { limit: "id-length", max: 256, actual: 16384 } },
    });
    expect(body.error.message).toBe(
      "Invalid Request: a JSON-RPC id may hold at most 256 characters; this one holds 16384. Use a shorter id (a number or a short string).",
    );
    expect((await rpc(token, session, "ping", {}, 3)).result).toEqual({});
  });

  it("a batch of 200 pings with 100-character ids is answered at once with 400 -32600 naming the batch limit", async () => {
    const token = mcpPrincipal("ana", "orders.read");
    const session = await initializeSession(token);
    const batch = Array.from({ length: 200 }, (_, i) => ({
      jsonrpc: "2.0",
      id: String(i).padStart(100, "0"),
      method: "ping",
    }));
    const res = await answeredWithin(5_000, mcpPost(token, batch, { "mcp-session-id": session, ...VERSION }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body).toMatchObject({ error: { code: -32600, data: { limit: "batch-length", max: 25, actual: 200 } } });
    expect(body.error.message).toContain("at most 25 messages; this one holds 200");
    expect((await rpc(token, session, "ping", {}, 4)).result).toEqual({});
  });

  it("the worst case inside the bounds is answered in full: 25 pings with 256-character ids outside Latin-1", async () => {
    const token = mcpPrincipal("ana", "orders.read");
    const session = await initializeSession(token);
    const ids = Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => String(i).padEnd(MAX_JSONRPC_ID_CHARS, "中"));
    const res = await answeredWithin(
      5_000,
      mcpPost(
        token,
        ids.map((id) => ({ jsonrpc: "2.0", id, method: "ping" })),
        { "mcp-session-id": session, ...VERSION },
      ),
    );
    expect(res.status).toBe(200);
    const replies = await answeredWithin(5_000, readRpc(res));
    expect(replies.map((reply) => reply.id).sort()).toEqual([...ids].sort());
  });
});
