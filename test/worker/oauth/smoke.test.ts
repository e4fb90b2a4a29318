import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import packageJson from "../../../package.json";
import { BASE, initializeSession, mcpPost, obtainTokens, rpc } from "../helpers";

describe("smoke", () => {
  it("serves health", async () => {
    const res = await SELF.fetch(`${BASE}/health`);
    expect(res.status).toBe(200);
    // The package's version, not a number written twice (it was "0.1.0" by hand here and in the server info).
    expect(await res.json()).toMatchObject({ status: "ok", version: packageJson.version });
  });

  it("challenges /mcp without a token", async () => {
    const res = await mcpPost(undefined, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain(
      `resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it("runs the whole dance and calls whoami", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: "orders.read contracts.read" });
    const session = await initializeSession(tokens.access_token);
    const list = await rpc(tokens.access_token, session, "tools/list");
    expect(list.result.tools.map((t: { name: string }) => t.name)).toContain("whoami");
    const call = await rpc(tokens.access_token, session, "tools/call", { name: "whoami", arguments: {} }, 3);
    expect(call.result.structuredContent).toMatchObject({ organization: { id: "acme" }, userId: "ana", role: "admin" });
    // The token is bound to this server's /mcp resource: the scopes whoami reports are the ones granted for it.
    expect(call.result.structuredContent.scopes).toEqual(expect.arrayContaining(["orders.read", "contracts.read"]));
    expect(tokens.scope?.split(" ")).toEqual(expect.arrayContaining(["orders.read", "contracts.read"]));
  });
});
