/**
 * What initialize advertises is what the server does (issue 9, item 9): resources/subscribe works, so
 * `resources.subscribe` is true; the tool, resource and prompt lists are fixed when the isolate starts and no
 * notifications/.../list_changed is ever sent, so every `listChanged` is false. Checked on the wire (a raw
 * initialize at the /mcp handler) and as a real SDK client sees it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { beforeAll, describe, expect, it } from "vitest";
import { fetchAs, mcpPrincipal, type Caller } from "../harness";
import { MCP_URL, mcpPost, readRpc } from "../helpers";

const ADVERTISED = {
  tools: { listChanged: false },
  resources: { subscribe: true, listChanged: false },
  prompts: { listChanged: false },
  logging: {},
};

let token: Caller;
beforeAll(async () => {
  token = mcpPrincipal("ana", "orders.read contracts.read");
});

describe("initialize capabilities", () => {
  it("advertise exactly what the server does, on the wire", async () => {
    const response = await mcpPost(token, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    expect(response.status).toBe(200);
    const [reply] = await readRpc(response);
    expect(reply!.result.capabilities).toStrictEqual(ADVERTISED);
  });

  it("are what a real SDK client sees", async () => {
    const client = new Client({ name: "capabilities-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
      // The SDK client speaks to the /mcp handler as the verified principal (harness.ts).
      fetch: (input, init) => fetchAs(token, input instanceof Request ? input.url : input, init),
    });
    await client.connect(transport);
    try {
      expect(client.getServerCapabilities()).toStrictEqual(ADVERTISED);
    } finally {
      await client.close();
    }
  });
});
