import { describe, expect, it } from "vitest";
import { initializeSession, mcpPost, obtainTokens, readRpc, rpc } from "../helpers";

describe("order tools over MCP", () => {
  it("smoke", async () => {
    const { tokens } = await obtainTokens({ user: "ana", scope: "orders.read orders.search" });
    const session = await initializeSession(tokens.access_token);
    const list = await rpc(tokens.access_token, session, "tools/list");
    console.log(JSON.stringify(list.result.tools.map((t: any) => t.name)));
    const call = await rpc(tokens.access_token, session, "tools/call", { name: "orders_search", arguments: { status: "pago", limit: 3 } }, 3);
    console.log(JSON.stringify(call, null, 1));
    const one = await rpc(tokens.access_token, session, "tools/call", { name: "orders_get_by_id", arguments: { id: "ord_1002" } }, 4);
    console.log(JSON.stringify(one, null, 1));
    expect(mcpPost).toBeTruthy();
    expect(readRpc).toBeTruthy();
  });
});
