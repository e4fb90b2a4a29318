// End to end over `wrangler dev` with real MCP clients: the SDK Client with an OAuthClientProvider goes through
// discovery, registration, sign-in, consent and token, lists and calls tools, and steps up when a tool needs a
// scope it lacks; the MCP Inspector CLI lists the tools with a bearer token.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HeadlessUserProvider } from "../helpers/headless-user";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import type { WranglerDev } from "../helpers/wrangler-dev";

const run = promisify(execFile);
let server: WranglerDev;

beforeAll(async () => {
  server = await sharedWranglerDev();
});
afterAll(async () => {
  await server?.stop();
});

async function connectedClient(user: string) {
  const provider = new HeadlessUserProvider(server.url, user);
  const url = new URL(`${server.url}/mcp`);
  const client = new Client({ name: "arbiter-e2e", version: "1.0.0" });
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  await first.finishAuth(provider.takeCode());
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await client.connect(transport);
  return { client, provider, transport };
}

describe("MCP SDK client over OAuth", () => {
  it("discovers, registers, signs in, consents, and calls tools", async () => {
    const { client, provider } = await connectedClient("dev");
    expect(provider.authorizationUrls).toHaveLength(1);
    const authorize = provider.authorizationUrls[0]!;
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("resource")).toBe(`${server.url}/mcp`);
    expect(authorize.searchParams.get("scope")).toBe("orders.read contracts.read");
    expect(client.getServerVersion()).toMatchObject({ name: "arbiter", title: "Arbiter" });
    expect(client.getInstructions()).toMatch(/order data/);

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("whoami");
    const whoami = await client.callTool({ name: "whoami", arguments: {} });
    expect(whoami.structuredContent).toMatchObject({
      organization: { id: "acme" },
      userId: "dev",
      role: "developer",
      scopes: ["orders.read", "contracts.read"],
    });
    await client.close();
  });

  it("steps up when a tool needs a scope the token lacks", async () => {
    const { client, provider, transport } = await connectedClient("ana");
    const { tools } = await client.listTools();
    const scoped = tools.find((t) => t.name === "orders_search");
    expect(scoped, "orders_search is served").toBeDefined();

    const refused = await client
      .callTool({ name: "orders_search", arguments: { status: "PAID" } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UnauthorizedError);
    const stepUp = provider.authorizationUrls.at(-1)!;
    expect(stepUp.searchParams.get("scope")!.split(" ")).toContain("orders.search");
    expect(provider.consentPagesSeen.at(-1)).toContain("orders.search");
    await transport.finishAuth(provider.takeCode());

    const result = await client.callTool({ name: "orders_search", arguments: { status: "PAID" } });
    expect(result.isError).toBeFalsy();
    const after = await client.callTool({ name: "whoami", arguments: {} });
    expect((after.structuredContent as { scopes: string[] }).scopes).toContain("orders.search");
    await client.close();
  });
});

describe("MCP SDK client stepping up for a resource", () => {
  it("steps up when resources/read needs a scope the token lacks (the same 403 challenge as tools/call)", async () => {
    // Consent without contracts.read first; the step-up consent then grants everything offered.
    const untick = ["contracts.read"];
    const provider = new HeadlessUserProvider(server.url, "ana", undefined, untick);
    const url = new URL(`${server.url}/mcp`);
    const client = new Client({ name: "arbiter-e2e", version: "1.0.0" });
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    await first.finishAuth(provider.takeCode());
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await client.connect(transport);
    const before = await client.callTool({ name: "whoami", arguments: {} });
    expect((before.structuredContent as { scopes: string[] }).scopes).not.toContain("contracts.read");

    untick.length = 0;
    const refused = await client
      .readResource({ uri: "spec://projects/orders/verdicts/latest" })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrls.at(-1)!.searchParams.get("scope")!.split(" ")).toContain("contracts.read");
    await transport.finishAuth(provider.takeCode());

    // Past the scope check now: the resource itself answers (this fresh server has no project "orders").
    await expect(client.readResource({ uri: "spec://projects/orders/verdicts/latest" })).rejects.toThrow(
      /no project "orders"/,
    );
    await client.close();
  });
});

describe("MCP Inspector CLI", () => {
  it("lists the tools with a bearer token", async () => {
    const { provider, client } = await connectedClient("mia");
    await client.close();
    const token = provider.tokens()!.access_token;
    const { stdout } = await run(
      "npx",
      [
        "--no-install",
        "@modelcontextprotocol/inspector",
        "--cli",
        `${server.url}/mcp`,
        "--transport",
        "http",
        "--method",
        "tools/list",
        "--header",
        `Authorization: Bearer ${token}`,
      ],
      { timeout: 90_000, env: { ...process.env, NO_COLOR: "1" } },
    );
    const listed = JSON.parse(stdout) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name)).toContain("whoami");
  });

  it("is refused without a token", async () => {
    const failure = await run(
      "npx",
      [
        "--no-install",
        "@modelcontextprotocol/inspector",
        "--cli",
        `${server.url}/mcp`,
        "--transport",
        "http",
        "--method",
        "tools/list",
      ],
      { timeout: 90_000 },
    ).catch((e: { code?: number; stderr?: string; stdout?: string }) => e);
    expect((failure as { code?: number }).code).not.toBe(0);
    expect(`${(failure as { stderr?: string }).stderr}${(failure as { stdout?: string }).stdout}`).toMatch(
      /401|[Uu]nauthorized|auth_required/,
    );
  });
});
