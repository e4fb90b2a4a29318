// Mcp-Session-Id values are the client's text: one of any length names no session, on every method, and is answered
// as any unknown session is (404 with JSON-RPC -32001), never a 500.
import { describe, expect, it } from "vitest";
import { MCP_URL, obtainTokens } from "../helpers";
import { SELF } from "../self";

describe("an Mcp-Session-Id of any length", () => {
  it("is an unknown session on GET, POST and DELETE", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: "orders.read contracts.read" });
    for (const length of [100, 600, 3000, 7000]) {
      for (const method of ["GET", "POST", "DELETE"]) {
        const response = await SELF.fetch(MCP_URL, {
          method,
          headers: {
            Authorization: `Bearer ${tokens.access_token}`,
            Accept: "application/json, text/event-stream",
            "Content-Type": "application/json",
            "Mcp-Session-Id": "x".repeat(length),
            "MCP-Protocol-Version": "2025-11-25",
          },
          body: method === "POST" ? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) : undefined,
        });
        const body = await response.text();
        expect(response.status, `${method} with ${length} characters: ${body.slice(0, 200)}`).toBe(404);
        expect((JSON.parse(body) as { error: { code: number } }).error.code).toBe(-32001);
      }
    }
  });
});
