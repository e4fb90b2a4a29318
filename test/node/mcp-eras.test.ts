/**
 * Both MCP protocol eras on one `wrangler dev`, at the same /mcp URL: a real SDK 1.x client (2025-11-25: initialize,
 * Mcp-Session-Id, the GET stream and resources/subscribe) and a real SDK 2.x client pinned to 2026-07-28 (stateless
 * requests, subscriptions/listen). Both list and call tools and read resources; the default project one sets is
 * the other's (it is kept per user, not per session); after a CI upload over REST the 1.x session hears about the
 * new verdict on its subscription and the 2.x client on its listen stream, which also hears when the user's default
 * project gets a new active contract (spec://active/contract).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "../helpers/wrangler-dev";
import { obtainToken } from "../helpers/oauth-http";
import { modernRequest } from "../helpers/modern-request";

const LATEST = "spec://projects/orders/verdicts/latest";
const ACTIVE = "spec://active/contract";
const MODERN = "2026-07-28";

const order = { type: "object", required: ["id"], properties: { id: { type: "string" } } };
const contract = {
  openapi: "3.1.0",
  info: { title: "Orders", version: "1.0.0" },
  paths: {
    "/orders": {
      get: {
        operationId: "listOrders",
        responses: {
          "200": { description: "ok", content: { "application/json": { schema: { type: "array", items: order } } } },
        },
      },
    },
  },
};

let server: WranglerDev;
let ci: string;
let mcpToken: string;

async function upload(kind: "contracts" | "snapshots", document: object, query = ""): Promise<any> {
  const response = await fetch(`${server.url}/api/v1/projects/orders/${kind}${query}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ci}`, "Content-Type": "application/json" },
    body: JSON.stringify(document),
  });
  const body = await response.json();
  if (response.status !== 201) throw new Error(`${kind} upload failed: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** Collects notifications/resources/updated URIs; `received(n)` resolves once n have arrived. */
function updateLog() {
  const updates: string[] = [];
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  return {
    updates,
    push(uri: string) {
      updates.push(uri);
      for (const waiter of waiting.filter((w) => updates.length >= w.count)) waiter.resolve();
    },
    received: (count: number) =>
      new Promise<void>((resolve) => (updates.length >= count ? resolve() : waiting.push({ count, resolve }))),
  };
}

function textOf(read: { contents: Array<{ text?: string } | { blob?: string }> }): string {
  return (read.contents[0] as { text: string }).text;
}

beforeAll(async () => {
  server = await startWranglerDev({ vars: { ARBITER_DEV_SIGN_IN: "true" } });
  ci = await obtainToken(server.url, {
    user: "ana",
    scope: "contracts.read contracts.write snapshots.write",
    resource: `${server.url}/api`,
  });
  mcpToken = await obtainToken(server.url, { user: "ana", scope: "contracts.read", resource: `${server.url}/mcp` });
  await upload("contracts", contract);
});

afterAll(async () => {
  await server?.stop();
});

describe("one /mcp URL, two protocol eras", () => {
  it("serves a 1.x session client and a 2.x stateless client side by side, and both hear about a new verdict", async () => {
    const legacyLog = updateLog();
    const legacy = new Client({ name: "eras-v1", version: "1.0.0" });
    legacy.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => legacyLog.push(n.params.uri));
    const legacyTransport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${mcpToken}` } },
    });

    const modernLog = updateLog();
    const modern = new ClientV2(
      { name: "eras-v2", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    modern.setNotificationHandler("notifications/resources/updated", (n) => modernLog.push(n.params.uri));
    const modernTransport = new TransportV2(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${mcpToken}` } },
    });

    await legacy.connect(legacyTransport);
    await modern.connect(modernTransport);
    try {
      expect(legacy.getServerVersion()?.name).toBe("arbiter");
      expect(legacyTransport.sessionId).toBeTruthy();
      expect(modern.getServerVersion()?.name).toBe("arbiter");

      // The same catalog in both eras.
      const legacyTools = (await legacy.listTools()).tools.map((t) => t.name).sort();
      const modernTools = (await modern.listTools()).tools.map((t) => t.name).sort();
      expect(modernTools).toEqual(legacyTools);
      expect(modernTools).toContain("check_api_conformance");

      // The 1.x session sets the default project; the 2.x client (no session) sees it: it is kept per user.
      const select = await legacy.callTool({ name: "spec_project_select", arguments: { project: "orders" } });
      expect(select.isError).toBeFalsy();
      const listed = await modern.callTool({ name: "spec_projects_list", arguments: {} });
      expect(listed.isError).toBeFalsy();
      expect(listed.structuredContent).toMatchObject({ selectedProject: "orders" });
      expect(JSON.parse(textOf(await modern.readResource({ uri: ACTIVE })))).toMatchObject({ openapi: "3.1.0" });
      expect(JSON.parse(textOf(await legacy.readResource({ uri: ACTIVE })))).toMatchObject({ openapi: "3.1.0" });

      // Tool calls in the 2.x lane go through the same pipeline: invalid input is the pipeline's message.
      const invalid = await modern.callTool({ name: "spec_project_select", arguments: { project: 42 } });
      expect(invalid.isError).toBe(true);
      expect(JSON.stringify(invalid.content)).toMatch(/Invalid arguments for spec_project_select/);

      await legacy.subscribeResource({ uri: LATEST });
      const listen = await modern.listen({ resourceSubscriptions: [LATEST, ACTIVE] });
      expect(listen.honoredFilter).toEqual({ resourceSubscriptions: [LATEST, ACTIVE] });

      const uploaded = await upload("snapshots", contract, "?commit=eras001&branch=main");
      expect(uploaded.verdict.approved).toBe(true);
      await legacyLog.received(1);
      await modernLog.received(1);
      expect(legacyLog.updates).toEqual([LATEST]);
      expect(modernLog.updates).toEqual([LATEST]);
      const verdict = JSON.parse(textOf(await modern.readResource({ uri: LATEST })));
      expect(verdict).toMatchObject({ project: "orders", snapshot: { commit: "eras001" } });
      const check = await modern.callTool({ name: "check_api_conformance", arguments: {} });
      expect(check.structuredContent).toMatchObject({ approved: true, snapshot: { commit: "eras001" } });

      // A new active contract of the user's default project changes spec://active/contract on the listen stream.
      await upload("contracts", contract, "?label=eras-2");
      await modernLog.received(2);
      expect(modernLog.updates).toEqual([LATEST, ACTIVE]);
      await listen.close();
    } finally {
      await legacyTransport.terminateSession().catch(() => undefined);
      await legacy.close();
      await modern.close();
    }
  });

  it("calls every listed tool through the governed core in both eras, with a token holding every scope the tools need", async () => {
    const token = await obtainToken(server.url, {
      user: "ana",
      scope: "orders.read orders.search orders.pii orders.write contracts.read contracts.write audit.read",
      resource: `${server.url}/mcp`,
    });
    const headers = { Authorization: `Bearer ${token}` };
    const legacy = new Client({ name: "eras-v1-all", version: "1.0.0" });
    const modern = new ClientV2(
      { name: "eras-v2-all", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await legacy.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
    await modern.connect(new TransportV2(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
    // Arguments that make sense for the tools that need some; the others are called without (and may say what is missing).
    const argumentsOf: Record<string, Record<string, unknown>> = {
      orders_search: { status: "PAID" },
      orders_get_by_id: { id: "ord_1001" },
      spec_project_select: { project: "orders" },
    };
    try {
      const tools = (await legacy.listTools()).tools.map((tool) => tool.name);
      expect(tools.length).toBeGreaterThan(10);
      let succeeded = 0;
      for (const name of tools) {
        for (const [era, client] of [
          ["2025-11-25", legacy],
          ["2026-07-28", modern],
        ] as const) {
          const result = (await client.callTool({ name, arguments: argumentsOf[name] ?? {} })) as {
            content: Array<{ text?: string }>;
            isError?: boolean;
            _meta?: { correlationId?: string };
          };
          // Every call is answered by the core: a tool result (not a protocol error) that names its correlation id.
          expect(result.content.length, `${era} ${name}`).toBeGreaterThan(0);
          expect(result._meta?.correlationId, `${era} ${name}`).toMatch(/^[0-9a-f-]{36}$/);
          if (!result.isError) succeeded++;
        }
      }
      // The order tools, whoami, the project and contract listings succeed in both eras at least.
      expect(succeeded).toBeGreaterThanOrEqual(2 * 5);
    } finally {
      await legacy.close();
      await modern.close();
    }
  });

  it("answers 2026-07-28 requests statelessly: no Mcp-Session-Id, and a session request is not served there", async () => {
    const response = await modernRequest(server.url, mcpToken, "tools/list");
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const body = (await response.json()) as { result: { tools: Array<{ name: string }> } };
    expect(body.result.tools.length).toBeGreaterThan(5);
  });
});
