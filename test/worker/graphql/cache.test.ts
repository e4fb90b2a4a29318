/**
 * The optional response cache (policy cacheTtlSeconds, off by default) on the real Cache API: hits for the
 * same organization, masking level and variables only; stored answers are already masked; errors and
 * partial answers are never stored.
 */
import { describe, expect, it } from "vitest";
import { getGraphqlCatalog } from "../../../src/graphql/bundled";
import { cacheApiResponseCache, responseCacheKey } from "../../../src/graphql/cache";
import { loadGraphqlCatalog } from "../../../src/graphql/operation-allowlist";
import { buildCatalog } from "../../../src/mcp/catalog";
import { runToolCall } from "../../../src/mcp/pipeline";
import { getPolicy } from "../../../src/policy/load";
import { orderToolRegistrar } from "../../../src/tools/orders/tools";
import { OPS, policyFilesWith } from "./fixtures";
import { callContext, envWithUpstreams, principal, recordingDeps, scriptedUpstream } from "./upstream-harness";

const basePolicy = (name: string) => getGraphqlCatalog().operations.find((o) => o.name === name)!.policy;

describe("response cache", () => {
  it("is off by default", () => {
    expect(getGraphqlCatalog().operations.every((operation) => operation.cacheTtlSeconds === 0)).toBe(true);
  });

  const catalog = loadGraphqlCatalog(
    policyFilesWith({
      [`${OPS}SearchOrders.json`]: { ...basePolicy("SearchOrders"), cacheTtlSeconds: 60 },
      [`${OPS}GetOrderById.json`]: { ...basePolicy("GetOrderById"), cacheTtlSeconds: 60 },
    }),
  );
  const cache = cacheApiResponseCache(`test-${crypto.randomUUID()}`)!;
  const { state, fetcher } = scriptedUpstream();
  const tools = buildCatalog([orderToolRegistrar(catalog, { fetcher, cache })], getPolicy().scopeNames).tools;
  const env = envWithUpstreams();
  const member = principal("acme", ["orders.search", "orders.read"], "mia");
  const analyst = principal("acme", ["orders.search", "orders.read", "orders.pii"]);
  const globex = principal("globex", ["orders.search", "orders.read"], "gus");
  const search = (who: typeof member, args: Record<string, unknown>) =>
    runToolCall(tools.get("orders_search")!, args, callContext(who, env), recordingDeps());

  it("answers the same organization, masking level and variables from the cache; anything else goes upstream", async () => {
    state.mode = "ok";
    state.seen = [];
    const first = await search(member, { status: "PAID" });
    expect(first._meta.cache).toBe("miss");
    expect(state.seen).toHaveLength(1);

    const again = await search(member, { status: "paid" }); // same variables once normalised
    expect(again._meta.cache).toBe("hit");
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(state.seen).toHaveLength(1);

    expect((await search(member, { status: "PENDING" }))._meta.cache).toBe("miss");
    expect(state.seen).toHaveLength(2);

    const unmasked = await search(analyst, { status: "PAID" });
    expect(unmasked._meta.cache).toBe("miss");
    expect(state.seen).toHaveLength(3);
    const names = (unmasked.structuredContent!.orders as Array<{ customerName: string }>).map((o) => o.customerName);
    expect(names).toContain("Ana");
    expect(
      (again.structuredContent!.orders as Array<{ customerName: string }>).every((o) => o.customerName === "[masked]"),
    ).toBe(true);

    const other = await search(globex, { status: "PAID" });
    expect(other._meta.cache).toBe("miss");
    expect(state.seen).toHaveLength(4);
    expect((other.structuredContent!.orders as Array<{ id: string }>).every((o) => o.id.startsWith("ord_2"))).toBe(
      true,
    );
  });

  it("stores the masked answer, never the upstream's raw one", async () => {
    const key = await responseCacheKey({
      organizationId: "acme",
      maskingLevel: [],
      upstreamKind: "http",
      operation: "SearchOrders",
      variables: { status: "PAID", limit: 20 },
    });
    const stored = await cache.get(key);
    expect(stored).toBeDefined();
    expect(JSON.stringify(stored)).not.toMatch(/"Ana"|"Carla"/);
    expect(JSON.stringify(stored)).toContain("[masked]");
  });

  it("never stores errors or partial answers", async () => {
    state.seen = [];
    state.mode = "http-500";
    expect((await search(member, { status: "REFUNDED" })).isError).toBe(true);
    state.mode = "ok";
    expect((await search(member, { status: "REFUNDED" }))._meta.cache).toBe("miss");
    expect(state.seen).toHaveLength(2);

    state.mode = "partial";
    const get = (id: string) =>
      runToolCall(tools.get("orders_get_by_id")!, { id }, callContext(member, env), recordingDeps());
    expect((await get("ord_1002"))._meta.partial).toBe(true);
    expect((await get("ord_1002"))._meta.cache).toBe("miss");
    expect(state.seen).toHaveLength(4);
  });

  it("refuses a cache TTL on a mutation at load", () => {
    expect(() =>
      loadGraphqlCatalog(
        policyFilesWith({
          [`${OPS}UpdateOrderStatus.json`]: { ...basePolicy("UpdateOrderStatus"), cacheTtlSeconds: 30 },
        }),
      ),
    ).toThrow("policies/graphql/operations/UpdateOrderStatus.json: mutation-not-cacheable");
  });
});
