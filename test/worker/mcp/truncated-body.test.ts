// A body shorter than its Content-Length is a 400 that says the body was truncated, on /mcp and on the REST
// routes that read bodies, never a 500 (issue 9, item 10). Here the body ends early inside workerd; a real
// client going away mid-body over TCP is in test/node/truncated-body.test.ts.
import { SELF } from "../self";
import { beforeAll, describe, expect, it } from "vitest";
import { API_RESOURCE, BASE, MCP_URL, obtainTokens } from "../helpers";

let mcp: string;
let rest: string;
beforeAll(async () => {
  mcp = (await obtainTokens({ user: "ana", scope: "orders.read" })).tokens.access_token;
  rest = (await obtainTokens({ user: "ana", scope: "orders.search contracts.write", resource: API_RESOURCE })).tokens
    .access_token;
});

/** A POST whose Content-Length promises 100 bytes and whose body ends after 6. */
function shortPost(url: string, token: string, headers: Record<string, string> = {}): Promise<Response> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"a":1'));
      controller.close();
    },
  });
  return SELF.fetch(url, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      "Content-Length": "100",
      ...headers,
    },
    body,
    duplex: "half",
  } as RequestInit);
}

describe("a body shorter than its Content-Length", () => {
  it("POST /mcp: 400 with a JSON-RPC error saying the body was truncated", async () => {
    const res = await shortPost(MCP_URL, mcp, { Accept: "application/json, text/event-stream" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32700,
        message:
          "Parse error: the request body was truncated: it ended after 6 bytes of the 100 its Content-Length declares. Send the whole message again.",
        data: { receivedBytes: 6, declaredBytes: 100 },
      },
    });
  });

  it.each([
    ["a contract upload", `${BASE}/api/v1/projects/orders/contracts`],
    ["/chat", `${BASE}/chat`],
  ])("REST %s: 400 body_truncated, nothing stored", async (_what, url) => {
    const res = await shortPost(url, rest);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("body_truncated");
    expect(body.error.message).toBe(
      "The request body was truncated: it ended after 6 bytes of the 100 its Content-Length declares. Nothing was stored; send the whole body again.",
    );
  });
});
