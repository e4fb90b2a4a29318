/**
 * A deployment without development sign-in and without SESSION_SECRET cannot seal MCP session ids: an MCP client is
 * told so in JSON-RPC (503, what to set), not with the HTML page a browser gets.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import type { Env } from "../../../src/env";
import { mcpToken } from "../contracts-mcp/helpers";
import { MCP_URL } from "../helpers";

describe("an MCP session on a deployment without SESSION_SECRET", () => {
  it("is refused in JSON-RPC, naming the secret to set", async () => {
    const token = await mcpToken("ana");
    const unconfigured = { ...env, ARBITER_DEV_SIGN_IN: "false", SESSION_SECRET: undefined } as unknown as Env;
    const response = await worker.fetch(
      new Request(MCP_URL, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${token}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      }),
      unconfigured,
      createExecutionContext(),
    );
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32603,
        message: expect.stringContaining("SESSION_SECRET is not set"),
        data: { code: "server_not_configured" },
      },
    });
  });
});
