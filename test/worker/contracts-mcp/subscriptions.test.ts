/**
 * Verdict subscriptions inside workerd: resources/subscribe records the session in the organization's
 * ContractStore, unsubscribe removes it, a CI upload notifies the session on its standalone SSE stream, and
 * sessions that no longer hold the subscription (unsubscribed in the session, ended) are dropped at the next upload.
 * The same flow with a real SDK client over wrangler dev: test/node/contracts-subscription.test.ts.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { contractStore } from "../../../src/contracts/store/client";
import { MCP_URL } from "../helpers";
import { conformingSnapshot, ordersContract, violatingSnapshot } from "./fixtures";
import { connectAgent, request, restToken, uploadContract, uploadSnapshot, workerEnv, type Agent } from "./helpers";

const LATEST = "spec://projects/orders/verdicts/latest";
let ci: string;

const subscribers = (project = "orders") => contractStore(workerEnv, "acme").subscribers(project);

beforeAll(async () => {
  ci = await restToken("ana");
  await uploadContract(ci, "orders", ordersContract());
});

/** Opens the session's standalone SSE stream (GET /mcp) and collects the JSON-RPC messages it carries. */
async function openStream(agent: Agent) {
  const response = await SELF.fetch(MCP_URL, {
    method: "GET",
    headers: { Authorization: `Bearer ${agent.token}`, Accept: "text/event-stream", "mcp-session-id": agent.session, "mcp-protocol-version": "2025-11-25" },
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return {
    /** Resolves with the first message matching `predicate` (the test times out if none arrives). */
    async next(predicate: (message: Record<string, any>) => boolean): Promise<Record<string, any>> {
      for (;;) {
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        for (const line of lines) {
          if (!line.startsWith("data: ")) continue;
          const message = JSON.parse(line.slice(6));
          if (predicate(message)) return message;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("stream ended");
        buffered += decoder.decode(value, { stream: true });
      }
    },
    close: () => reader.cancel(),
  };
}

describe("latest-verdict subscriptions", () => {
  it("subscribing records the session in the ContractStore; unsubscribing removes it", async () => {
    const agent = await connectAgent("ana");
    expect((await request(agent, "resources/subscribe", { uri: LATEST })).error).toBeUndefined();
    expect(await subscribers()).toContain(agent.session);
    expect((await request(agent, "resources/unsubscribe", { uri: LATEST })).error).toBeUndefined();
    expect(await subscribers()).not.toContain(agent.session);
  });

  it("refuses a subscription to an unknown project, recording nothing", async () => {
    const agent = await connectAgent("ana");
    const reply = await request(agent, "resources/subscribe", { uri: "spec://projects/ghost/verdicts/latest" });
    expect(reply.error?.message).toMatch(/no project "ghost"/);
    expect(await subscribers("ghost")).toEqual([]);
  });

  it("a CI upload sends notifications/resources/updated on the subscribed session's stream", async () => {
    const agent = await connectAgent("ana");
    await request(agent, "resources/subscribe", { uri: LATEST });
    const stream = await openStream(agent);
    try {
      await uploadSnapshot(ci, "orders", violatingSnapshot(), "sub0001");
      const notification = await stream.next((m) => m.method === "notifications/resources/updated");
      expect(notification.params).toEqual({ uri: LATEST });
      // What the notification points to is the new verdict.
      const read = await request(agent, "resources/read", { uri: LATEST });
      expect(JSON.parse(read.result.contents[0].text)).toMatchObject({ snapshot: { commit: "sub0001" }, verdict: { approved: false } });
    } finally {
      await stream.close();
    }
  });

  it("drops sessions that no longer hold the subscription, keeps those that do", async () => {
    const kept = await connectAgent("ana");
    await request(kept, "resources/subscribe", { uri: LATEST });
    const ended = await connectAgent("ana");
    await request(ended, "resources/subscribe", { uri: LATEST });
    const ghost = crypto.randomUUID();
    // A session id that is recorded but whose session never subscribed (or is gone).
    await contractStore(workerEnv, "acme").subscribe("orders", ghost);
    const close = await SELF.fetch(MCP_URL, { method: "DELETE", headers: { Authorization: `Bearer ${ended.token}`, "mcp-session-id": ended.session, "mcp-protocol-version": "2025-11-25" } });
    expect(close.status).toBeLessThan(300);
    expect(await subscribers()).toEqual(expect.arrayContaining([kept.session, ended.session, ghost]));

    await uploadSnapshot(ci, "orders", conformingSnapshot(), "sub0002");
    const after = await subscribers();
    expect(after).toContain(kept.session);
    expect(after).not.toContain(ghost);
    expect(after).not.toContain(ended.session);
  });
});
