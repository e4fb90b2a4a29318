/**
 * The order tools at the /mcp handler as a verified principal (harness.ts; McpAgent session, pipeline) on the
 * embedded demo upstream: listing, scope enforcement per tool, status normalisation and refusals, id checks,
 * masking with and without orders.pii, and tenant isolation between acme and globex.
 */
import { describe, expect, it } from "vitest";
import { mcpPrincipal } from "../harness";
import { initializeSession, mcpPost, rpc } from "../helpers";

type Order = { id: string; customerName: string; status: string; total: number };

async function connect(user: string, scope: string) {
  const token = mcpPrincipal(user, scope);
  const session = await initializeSession(token);
  let id = 10;
  return {
    token,
    session,
    call: async (name: string, args: Record<string, unknown>) =>
      (await rpc(token, session, "tools/call", { name, arguments: args }, id++)).result,
  };
}

describe("order tools over MCP", () => {
  it("lists both tools with derived schemas, annotations and scopes; the disabled mutation is absent", async () => {
    const { token, session } = await connect("ana", "orders.read orders.search");
    const tools = (await rpc(token, session, "tools/list")).result.tools as Array<Record<string, any>>;
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.has("orders_update_status")).toBe(false);
    const search = byName.get("orders_search")!;
    expect(search.title).toBe("Search orders");
    expect(search.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(search._meta.requiredScopes).toEqual(["orders.search"]);
    expect(search.inputSchema.properties.status.enum).toEqual(["PENDING", "PAID", "SHIPPED", "CANCELLED", "REFUNDED"]);
    expect(search.outputSchema.properties.orders.items.required).toContain("customerName");
    const get = byName.get("orders_get_by_id")!;
    expect(get._meta.requiredScopes).toEqual(["orders.read"]);
    expect(get.inputSchema.required).toEqual(["id"]);
  });

  it("refuses each tool without its own scope: HTTP 403 insufficient_scope naming the missing scope", async () => {
    const readOnly = await connect("ana", "orders.read");
    const refused = await mcpPost(
      readOnly.token,
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "orders_search", arguments: {} } },
      { "mcp-session-id": readOnly.session, "mcp-protocol-version": "2025-11-25" },
    );
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toMatch(/error="insufficient_scope"/);
    expect(refused.headers.get("www-authenticate")).toMatch(/scope="[^"]*orders\.search/);
    expect((await readOnly.call("orders_get_by_id", { id: "ord_1001" })).isError).toBeUndefined();

    const searchOnly = await connect("ana", "orders.search");
    const refusedGet = await mcpPost(
      searchOnly.token,
      {
        jsonrpc: "2.0",
        id: 6,
        method: "tools/call",
        params: { name: "orders_get_by_id", arguments: { id: "ord_1001" } },
      },
      { "mcp-session-id": searchOnly.session, "mcp-protocol-version": "2025-11-25" },
    );
    expect(refusedGet.status).toBe(403);
    expect(refusedGet.headers.get("www-authenticate")).toMatch(/scope="[^"]*orders\.read/);
    expect((await searchOnly.call("orders_search", { limit: 1 })).isError).toBeUndefined();
  });

  it("normalises status synonyms from policy (paid, Paid, pago -> PAID) and marks the answer as demo data", async () => {
    const client = await connect("ana", "orders.search");
    const canonical = await client.call("orders_search", { status: "PAID", limit: 50 });
    const ids = (canonical.structuredContent.orders as Order[]).map((o) => o.id);
    expect(ids).toContain("ord_1001");
    expect(ids).toContain("ord_1003");
    expect(ids).not.toContain("ord_1002");
    expect((canonical.structuredContent.orders as Order[]).every((o) => o.status === "PAID")).toBe(true);
    for (const word of ["paid", "Paid", "pago", " PAGOS "]) {
      const result = await client.call("orders_search", { status: word, limit: 50 });
      expect(
        (result.structuredContent.orders as Order[]).map((o) => o.id),
        word,
      ).toEqual(ids);
    }
    expect(canonical._meta).toMatchObject({ demoData: true, dataSource: "demo" });
    expect(canonical._meta.note).toMatch(/demo data/i);
  });

  it("refuses an unknown status with the valid values, and a malformed id with the expected pattern", async () => {
    const client = await connect("ana", "orders.read orders.search");
    const status = await client.call("orders_search", { status: "lost in space" });
    expect(status.isError).toBe(true);
    expect(status.content[0].text).toContain(
      "status: not a valid OrderStatus. Valid values: PENDING, PAID, SHIPPED, CANCELLED, REFUNDED",
    );
    expect(status.content[0].text).toContain("paid -> PAID");

    const limit = await client.call("orders_search", { limit: 500 });
    expect(limit.isError).toBe(true);
    expect(limit.content[0].text).toContain("limit must be at most 50");

    for (const id of ["1002", "ORD-1002", "ord_1002; { orders { id } }"]) {
      const result = await client.call("orders_get_by_id", { id });
      expect(result.isError, id).toBe(true);
      expect(result.content[0].text).toContain("id: expected ord_ followed by 1 to 12 digits, e.g. ord_1002");
    }
    const extra = await client.call("orders_get_by_id", { id: "ord_1002", query: "{ orders { customerName } }" });
    expect(extra.isError).toBe(true);
    expect(extra.content[0].text).toContain("has unknown field query: remove it");
  });

  it("masks customer names unless the token holds orders.pii", async () => {
    const member = await connect("mia", "orders.read orders.search");
    const masked = await member.call("orders_get_by_id", { id: "ord_1002" });
    expect(masked.structuredContent.orderById).toMatchObject({
      id: "ord_1002",
      customerName: "[masked]",
      total: 89.9,
      status: "PENDING",
    });
    expect(masked._meta.maskedFields).toEqual(["Order.customerName"]);
    expect(JSON.stringify(masked)).not.toContain("Bruno");
    const search = await member.call("orders_search", { limit: 50 });
    expect((search.structuredContent.orders as Order[]).every((o) => o.customerName === "[masked]")).toBe(true);

    const admin = await connect("ana", "orders.read orders.search orders.pii");
    const clear = await admin.call("orders_get_by_id", { id: "ord_1002" });
    expect(clear.structuredContent.orderById).toMatchObject({
      id: "ord_1002",
      customerName: "Bruno",
      total: 89.9,
      status: "PENDING",
    });
    expect(clear._meta.maskedFields).toEqual([]);
    const original = await admin.call("orders_get_by_id", { id: "ord_1001" });
    expect(original.structuredContent.orderById).toMatchObject({ customerName: "Ana", total: 120.5, status: "PAID" });
  });

  it("keeps organizations apart: globex cannot read acme's orders, and neither sees the other's in searches", async () => {
    const gus = await connect("gus", "orders.read orders.search orders.pii");
    const foreign = await gus.call("orders_get_by_id", { id: "ord_1002" });
    expect(foreign.isError).toBeUndefined();
    expect(foreign.structuredContent.orderById).toBeNull();
    const globexIds = ((await gus.call("orders_search", { limit: 50 })).structuredContent.orders as Order[]).map(
      (o) => o.id,
    );
    expect(globexIds.length).toBeGreaterThan(0);
    expect(globexIds.every((id) => id.startsWith("ord_2"))).toBe(true);
    const own = await gus.call("orders_get_by_id", { id: globexIds[0]! });
    expect(own.structuredContent.orderById.id).toBe(globexIds[0]);

    const ana = await connect("ana", "orders.read orders.search");
    const acmeIds = ((await ana.call("orders_search", { limit: 50 })).structuredContent.orders as Order[]).map(
      (o) => o.id,
    );
    expect(acmeIds.some((id) => globexIds.includes(id))).toBe(false);
    expect((await ana.call("orders_get_by_id", { id: globexIds[0]! })).structuredContent.orderById).toBeNull();
  });
});
