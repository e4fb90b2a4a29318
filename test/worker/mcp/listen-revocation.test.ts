// A 2026-07-28 listen stream lives in the organization's ListenHub as long as its client reads it; the token that
// opened it is not asked again. Before the hub publishes a change it asks whether the stream's holder still holds a
// grant for its client (src/oauth/live-grant.ts): a member removed meanwhile gets no change, and the stream ends.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operator } from "../directory/helpers";
import { modernPost, obtainTokens } from "../helpers";
import { conformingSnapshot, ordersContract } from "../contracts-mcp/fixtures";
import { ciPrincipal, uploadContract, uploadSnapshot } from "../contracts-mcp/helpers";

const LATEST = "spec://projects/orders/verdicts/latest";
const ci = ciPrincipal("ana");

/** Reads an SSE response's JSON-RPC messages as they come. */
function messages(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return {
    /** The next message, or "ended" when the stream ends. */
    async next(): Promise<Record<string, any> | "ended"> {
      for (;;) {
        const at = buffered.indexOf("\n\n");
        if (at >= 0) {
          const event = buffered.slice(0, at);
          buffered = buffered.slice(at + 2);
          const data = /^data: (.*)$/m.exec(event)?.[1];
          if (data) return JSON.parse(data);
          continue;
        }
        const { value, done } = await reader.read();
        if (done) return "ended";
        buffered += decoder.decode(value, { stream: true });
      }
    },
    close: () => reader.cancel().catch(() => undefined),
  };
}

async function listen(user: string) {
  const { tokens } = await obtainTokens({ user, scope: "contracts.read" });
  const response = await modernPost(tokens.access_token, "subscriptions/listen", {
    notifications: { resourceSubscriptions: [LATEST] },
  });
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const stream = messages(response);
  expect(await stream.next()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
  return stream;
}

beforeAll(async () => {
  await uploadContract(ci, "orders", ordersContract());
});

afterAll(async () => {
  await operator("PUT", "/organizations/acme/members/mia%40acme.example", { role: "member" });
});

describe("listen streams of a member removed meanwhile", () => {
  it("get no change and end, while a member who stays hears it", async () => {
    const removed = await listen("mia");
    const stays = await listen("ana");
    try {
      expect((await operator("DELETE", "/organizations/acme/members/mia%40acme.example")).status).toBe(200);
      await uploadSnapshot(ci, "orders", conformingSnapshot(), "listen0001");
      expect(await stays.next()).toMatchObject({ method: "notifications/resources/updated", params: { uri: LATEST } });
      expect(await removed.next()).toBe("ended");
    } finally {
      await removed.close();
      await stays.close();
    }
  });
});
