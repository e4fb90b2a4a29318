/** graphql://schema, policies://access, examples://orders and the ask_orders prompt, read over MCP. */
import { buildASTSchema, parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { getGraphqlCatalog } from "../../../src/graphql/bundled";
import { enabledOperations } from "../../../src/graphql/operation-allowlist";
import { getRateLimitPolicy, quotaFor } from "../../../src/ratelimit/policy";
import { mcpPrincipal, type Caller } from "../harness";
import { operator } from "../directory/helpers";
import { initializeSession, rpc } from "../helpers";

async function read(token: Caller, session: string, uri: string) {
  const reply = await rpc(token, session, "resources/read", { uri }, Math.floor(Math.random() * 1e6));
  return reply.result.contents[0] as { uri: string; mimeType: string; text: string };
}

describe("order resources and prompt", () => {
  it("lists the three resources and the prompt", async () => {
    const token = mcpPrincipal("mia", "orders.read orders.search");
    const session = await initializeSession(token);
    const resources = (await rpc(token, session, "resources/list")).result.resources.map((r: { uri: string }) => r.uri);
    expect(resources).toEqual(expect.arrayContaining(["graphql://schema", "policies://access", "examples://orders"]));
    const prompts = (await rpc(token, session, "prompts/list", {}, 3)).result.prompts as Array<{
      name: string;
      arguments: Array<{ name: string; required: boolean }>;
    }>;
    const ask = prompts.find((p) => p.name === "ask_orders")!;
    expect(ask.arguments).toEqual([expect.objectContaining({ name: "question", required: true })]);
  });

  it("graphql://schema is the SDL of only what the allowlisted operations touch", async () => {
    const token = mcpPrincipal("mia", "orders.read");
    const session = await initializeSession(token);
    const schema = await read(token, session, "graphql://schema");
    expect(schema.mimeType).toBe("application/graphql");
    const subset = buildASTSchema(parse(schema.text));
    for (const operation of enabledOperations(getGraphqlCatalog()))
      expect(validate(subset, operation.document), operation.name).toEqual([]);
    // Not touched by any enabled operation: the customer relation, its e-mail, the filter input, the mutation.
    expect(schema.text).not.toMatch(/type Customer|email|OrderFilter|Mutation|updateOrderStatus/);
    expect(schema.text).toContain("orderById(");
    expect(subset.getType("Order")).toBeDefined();
  });

  it("policies://access is generated from the policy: scopes, quotas, timeouts, masked fields, audit fields", async () => {
    const token = mcpPrincipal("mia", "orders.search");
    const session = await initializeSession(token);
    const access = JSON.parse((await read(token, session, "policies://access")).text);
    const search = access.tools.find((t: { tool: string }) => t.tool === "orders_search");
    expect(search).toMatchObject({
      requiredScopes: ["orders.search"],
      youMayCall: true,
      timeout: "3 s",
      quota: quotaFor(getRateLimitPolicy(), "acme", "orders_search"),
    });
    const get = access.tools.find((t: { tool: string }) => t.tool === "orders_get_by_id");
    expect(get).toMatchObject({ requiredScopes: ["orders.read"], youMayCall: false });
    expect(access.disabledOperations).toEqual([
      expect.objectContaining({ tool: "orders_update_status", requiredScopes: ["orders.write"] }),
    ]);
    expect(access.maskedFields).toContainEqual({
      field: "Order.customerName",
      reason: "customer's name (personal data)",
      unmaskScope: "orders.pii",
      maskedAs: "[masked]",
      maskedForYou: true,
    });
    expect(Object.keys(access.audit.fields)).toEqual(
      expect.arrayContaining(["correlationId", "target", "outcome", "durationMs", "argumentsDigest"]),
    );
    expect(access.dataSource).toContain("demo");
    expect(access.limits.maxDepth).toBe(getGraphqlCatalog().gateway.limits.maxDepth);
  });

  it("examples://orders runs the operations against the demo upstream, masked for the reader", async () => {
    const masked = mcpPrincipal("mia", "orders.read");
    const session = await initializeSession(masked);
    const doc = JSON.parse((await read(masked, session, "examples://orders")).text);
    expect(doc.about).toMatch(/DEMO DATA/);
    const search = doc.examples.find((e: { tool: string }) => e.tool === "orders_search");
    expect(search.arguments).toEqual({ status: "paid", limit: 5 });
    expect(search.sentAsVariables).toEqual({ status: "PAID", limit: 5 });
    expect(search.structuredContent.orders).toHaveLength(5);
    expect(
      search.structuredContent.orders.every(
        (o: { status: string; customerName: string }) => o.status === "PAID" && o.customerName === "[masked]",
      ),
    ).toBe(true);
    const get = doc.examples.find((e: { tool: string }) => e.tool === "orders_get_by_id");
    expect(get.structuredContent.orderById).toMatchObject({
      id: "ord_1002",
      total: 89.9,
      status: "PENDING",
      customerName: "[masked]",
    });
    expect(get._meta.demoData).toBe(true);

    const clear = mcpPrincipal("ana", "orders.read orders.pii");
    const adminSession = await initializeSession(clear);
    const unmasked = JSON.parse((await read(clear, adminSession, "examples://orders")).text);
    expect(
      unmasked.examples.find((e: { tool: string }) => e.tool === "orders_get_by_id").structuredContent.orderById
        .customerName,
    ).toBe("Bruno");
  });

  it("examples://orders also masks the fields the organization's data policy adds", async () => {
    expect(
      (
        await operator("POST", "/organizations", {
          id: "vandelay",
          name: "Vandelay",
          emailDomains: ["vandelay.example"],
          dataPolicy: {
            sensitiveFields: { "Order.currency": { unmaskScope: "orders.pii", reason: "pricing is internal" } },
          },
        })
      ).status,
    ).toBe(201);
    const reader = mcpPrincipal("mia", "orders.read", { organizationId: "vandelay" });
    const doc = JSON.parse((await read(reader, await initializeSession(reader), "examples://orders")).text);
    const orders = doc.examples.find((e: { tool: string }) => e.tool === "orders_search").structuredContent.orders;
    expect(orders.length).toBeGreaterThan(0);
    for (const order of orders) expect(order).toMatchObject({ currency: "[masked]", customerName: "[masked]" });
    const acme = mcpPrincipal("mia", "orders.read");
    const acmeDoc = JSON.parse((await read(acme, await initializeSession(acme), "examples://orders")).text);
    const acmeOrders = acmeDoc.examples.find((e: { tool: string }) => e.tool === "orders_search").structuredContent
      .orders;
    expect(acmeOrders.map((order: { currency: string }) => order.currency)).not.toContain("[masked]");
  });

  it("ask_orders tells the model to use only the order tools, no other sources, no sensitive data", async () => {
    const token = mcpPrincipal("mia", "orders.read");
    const session = await initializeSession(token);
    const reply = await rpc(
      token,
      session,
      "prompts/get",
      { name: "ask_orders", arguments: { question: "Quais pedidos estão pagos?" } },
      9,
    );
    const text = reply.result.messages[0].content.text as string;
    expect(reply.result.messages[0].role).toBe("user");
    expect(text).toContain("- orders_search: Search orders");
    expect(text).toContain("- orders_get_by_id: Get an order by id");
    expect(text).toContain("Do not use any other tool, source, web search or prior knowledge");
    expect(text).toContain("Do not ask the user for sensitive or personal data");
    expect(text).not.toContain("orders_update_status");
    expect(text.endsWith("Question: Quais pedidos estão pagos?")).toBe(true);

    const missing = await rpc(token, session, "prompts/get", { name: "ask_orders", arguments: {} }, 10);
    expect(missing.error.message).toMatch(/question/);
  });
});
