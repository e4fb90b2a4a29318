/**
 * End to end over `wrangler dev`: a real MCP SDK client (Streamable HTTP, which opens the standalone SSE stream after
 * initialize) subscribes to a project's latest verdict; CI uploads a snapshot over REST; the client receives
 * notifications/resources/updated for that URI and reads the new verdict. A second client that unsubscribed
 * receives nothing for the same upload. Then the active contract: sessions subscribed to spec://active/contract
 * (for their user's default project) or to .../contracts/active hear about a contract upload or activation.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "../helpers/wrangler-dev";
import { obtainToken } from "../helpers/oauth-http";

const LATEST = "spec://projects/orders/verdicts/latest";
const ACTIVE = "spec://active/contract";
const ORDERS_ACTIVE = "spec://projects/orders/contracts/active";

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
    "/orders/{id}": {
      get: {
        operationId: "getOrder",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "ok", content: { "application/json": { schema: order } } } },
      },
    },
  },
};
const violating = { ...contract, paths: { "/orders": contract.paths["/orders"] } };

let server: WranglerDev;
let ci: string;
let mcpTokenAna: string;
let mcpTokenDev: string;
let mcpTokenMia: string;

async function upload(kind: "contracts" | "snapshots", document: object, query = "", project = "orders"): Promise<any> {
  const response = await fetch(`${server.url}/api/v1/projects/${project}/${kind}${query}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ci}`, "Content-Type": "application/json" },
    body: JSON.stringify(document),
  });
  const body = await response.json();
  if (response.status !== 201) throw new Error(`${kind} upload failed: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

async function connect(token: string) {
  const updates: string[] = [];
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  const client = new Client({ name: "arbiter-e2e", version: "1.0.0" });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push(notification.params.uri);
    for (const waiter of waiting.filter((w) => updates.length >= w.count)) waiter.resolve();
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return {
    client,
    transport,
    updates,
    /** Resolves once `count` updates have arrived (the test's timeout fails it otherwise). */
    updatesReceived: (count: number) =>
      new Promise<void>((resolve) => (updates.length >= count ? resolve() : waiting.push({ count, resolve }))),
  };
}

beforeAll(async () => {
  server = await startWranglerDev({ vars: { ARBITER_DEV_SIGN_IN: "true" } });
  ci = await obtainToken(server.url, {
    user: "ana",
    scope: "contracts.read contracts.write snapshots.write",
    resource: `${server.url}/api`,
  });
  mcpTokenAna = await obtainToken(server.url, { user: "ana", scope: "contracts.read", resource: `${server.url}/mcp` });
  mcpTokenDev = await obtainToken(server.url, { user: "dev", scope: "contracts.read", resource: `${server.url}/mcp` });
  mcpTokenMia = await obtainToken(server.url, { user: "mia", scope: "contracts.read", resource: `${server.url}/mcp` });
  await upload("contracts", contract);
});

async function activate(version: number): Promise<void> {
  const response = await fetch(`${server.url}/api/v1/projects/orders/contracts/${version}/activate`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ci}` },
  });
  if (response.status !== 200) throw new Error(`activation failed: ${response.status} ${await response.text()}`);
}

afterAll(async () => {
  await server?.stop();
});

describe("verdict subscription with a real MCP client", () => {
  it("receives notifications/resources/updated after CI uploads a snapshot over REST", async () => {
    const subscriber = await connect(mcpTokenAna);
    const bystander = await connect(mcpTokenAna);
    try {
      expect(subscriber.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      await subscriber.client.subscribeResource({ uri: LATEST });
      await bystander.client.subscribeResource({ uri: LATEST });
      await bystander.client.unsubscribeResource({ uri: LATEST });

      const uploaded = await upload("snapshots", violating, "?commit=e2e0001&branch=main");
      expect(uploaded.verdict.approved).toBe(false);

      await subscriber.updatesReceived(1);
      expect(subscriber.updates).toEqual([LATEST]);
      const read = await subscriber.client.readResource({ uri: LATEST });
      const body = JSON.parse((read.contents[0] as { text: string }).text);
      expect(body).toMatchObject({ project: "orders", snapshot: { commit: "e2e0001" }, verdict: { approved: false } });

      const check = await subscriber.client.callTool({
        name: "check_api_conformance",
        arguments: { project: "orders" },
      });
      expect(check.isError).toBeFalsy();
      expect(check.structuredContent).toMatchObject({ approved: false, snapshot: { commit: "e2e0001" } });

      // A second upload: the subscriber hears again; the bystander, who unsubscribed, heard nothing of either.
      await upload("snapshots", contract, "?commit=e2e0002&branch=main");
      await subscriber.updatesReceived(2);
      expect(subscriber.updates).toEqual([LATEST, LATEST]);
      // The bystander's stream stayed open the whole time; a tool round trip proves it is alive and silent.
      await bystander.client.callTool({ name: "spec_projects_list", arguments: {} });
      expect(bystander.updates).toEqual([]);
    } finally {
      await subscriber.transport.terminateSession().catch(() => undefined);
      await bystander.transport.terminateSession().catch(() => undefined);
      await subscriber.client.close();
      await bystander.client.close();
    }
  });

  it("announces a new active contract to sessions following it: spec://active/contract for the user's default project, .../contracts/active", async () => {
    await upload("contracts", contract, "", "billing");
    // The default project is per user (2026-07-28 clients have no session), so the sessions that follow
    // different defaults belong to different users of the organization.
    const follower = await connect(mcpTokenAna); // ana selects orders; spec://active/contract and .../contracts/active
    const verdictOnly = await connect(mcpTokenAna); // the latest verdict of orders only
    const elsewhere = await connect(mcpTokenDev); // dev selects billing; spec://active/contract
    const unselected = await connect(mcpTokenMia); // mia has no default project
    const sessions = [follower, verdictOnly, elsewhere, unselected];
    try {
      await expect(unselected.client.subscribeResource({ uri: ACTIVE })).rejects.toThrow(/spec_project_select first/);

      await follower.client.callTool({ name: "spec_project_select", arguments: { project: "orders" } });
      await follower.client.subscribeResource({ uri: ACTIVE });
      await follower.client.subscribeResource({ uri: ORDERS_ACTIVE });
      await verdictOnly.client.subscribeResource({ uri: LATEST });
      await elsewhere.client.callTool({ name: "spec_project_select", arguments: { project: "billing" } });
      await elsewhere.client.subscribeResource({ uri: ACTIVE });

      const uploaded = await upload("contracts", contract, "?label=004-orders");
      await follower.updatesReceived(2);
      expect([...follower.updates].sort()).toEqual([ACTIVE, ORDERS_ACTIVE]);
      const read = await follower.client.readResource({ uri: ACTIVE });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ openapi: "3.1.0" });

      // The contract change left the verdict subscriber's record in place: a snapshot still reaches it.
      await upload("snapshots", contract, "?commit=e2e0003&branch=main");
      await verdictOnly.updatesReceived(1);
      expect(verdictOnly.updates).toEqual([LATEST]);

      // spec://active/contract moves with the user's default project.
      await elsewhere.client.callTool({ name: "spec_project_select", arguments: { project: "orders" } });
      await follower.client.unsubscribeResource({ uri: ORDERS_ACTIVE });
      await activate(uploaded.contract.version - 1);
      await elsewhere.updatesReceived(1);
      expect(elsewhere.updates).toEqual([ACTIVE]);
      await follower.updatesReceived(3);
      expect(follower.updates.slice(2)).toEqual([ACTIVE]);

      // Round trips prove the other streams are alive and heard nothing more.
      for (const session of sessions) await session.client.callTool({ name: "spec_projects_list", arguments: {} });
      expect(follower.updates).toHaveLength(3);
      expect(verdictOnly.updates).toEqual([LATEST]);
      expect(elsewhere.updates).toEqual([ACTIVE]);
      expect(unselected.updates).toEqual([]);
    } finally {
      for (const session of sessions) {
        await session.transport.terminateSession().catch(() => undefined);
        await session.client.close();
      }
    }
  });
});
