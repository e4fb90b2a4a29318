/**
 * The gateway behind the tools, through the real pipeline (runToolCall) with a recording audit sink: what the
 * upstream receives (operation text, variables, credential; never the client's token), and how timeouts,
 * HTTP errors, malformed bodies, GraphQL errors, partial data, oversize answers and wrong shapes come out.
 */
import { describe, expect, it, vi } from "vitest";
import { getGraphqlCatalog } from "../../../src/graphql/bundled";
import { loadGraphqlCatalog, type GraphqlCatalog } from "../../../src/graphql/operation-allowlist";
import type { GovernedOptions } from "../../../src/graphql/run-operation";
import { buildCatalog } from "../../../src/mcp/catalog";
import { runToolCall } from "../../../src/mcp/pipeline";
import { getPolicy } from "../../../src/policy/load";
import { orderToolRegistrar } from "../../../src/tools/orders/tools";
import { OPS, policyFilesWith } from "./fixtures";
import {
  callContext,
  envWithUpstreams,
  LEAKED_IN_ERRORS,
  principal,
  recordingDeps,
  scriptedUpstream,
} from "./upstream-harness";

function toolsFor(catalog: GraphqlCatalog, fetcher: GovernedOptions["fetcher"]) {
  return buildCatalog([orderToolRegistrar(catalog, { fetcher, cache: null })], getPolicy().scopeNames).tools;
}

const reader = principal("acme", ["orders.read", "orders.search"]);

describe("gateway to a configured upstream", () => {
  const { state, fetcher } = scriptedUpstream();
  const tools = toolsFor(getGraphqlCatalog(), fetcher);
  const env = envWithUpstreams();
  const call = async (tool: string, args: unknown) => {
    const deps = recordingDeps();
    const result = await runToolCall(tools.get(tool)!, args, callContext(reader, env), deps);
    return { result, audit: deps.records[0]! };
  };

  it("sends only the allowlisted operation text, the variables and the organization's credential", async () => {
    state.mode = "ok";
    state.seen = [];
    const { result, audit } = await call("orders_search", { status: "pago" });
    expect(result.isError).toBeUndefined();
    expect(audit.outcome).toBe("ok");
    const seen = state.seen[0]!;
    expect(seen.url).toBe("https://orders.acme.example/graphql");
    expect(seen.body).toEqual({
      query: getGraphqlCatalog().operations.find((o) => o.name === "SearchOrders")!.upstreamQuery,
      operationName: "SearchOrders",
      variables: { status: "PAID", limit: 20 },
    });
    expect(seen.headers.authorization).toBe("Bearer acme-upstream-secret-123");
    expect(result._meta).toMatchObject({ dataSource: "organization-upstream", demoData: false });
    expect(JSON.stringify(result)).not.toContain("acme-upstream-secret-123");
  });

  it("uses each organization's own endpoint and credential header", async () => {
    state.mode = "ok";
    state.seen = [];
    const deps = recordingDeps();
    await runToolCall(
      tools.get("orders_get_by_id")!,
      { id: "ord_2001" },
      callContext(principal("globex", ["orders.read"], "gus"), env),
      deps,
    );
    expect(state.seen[0]!.url).toBe("https://orders.globex.example/graphql");
    expect(state.seen[0]!.headers["x-api-key"]).toBe("globex-upstream-secret-456");
    expect(state.seen[0]!.headers.authorization).toBeUndefined();
  });

  it("maps an upstream 500 to a safe message, without the body", async () => {
    state.mode = "http-500";
    const { result, audit } = await call("orders_get_by_id", { id: "ord_1002" });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(
      /^The order API failed \(HTTP 500\)\. Retry later; if it keeps failing, tell the operator\. \(correlation id /,
    );
    expect(JSON.stringify(result)).not.toMatch(/stack|db\.js|hunter2|acme\.example/);
    expect(audit.outcome).toBe("upstream-error");
  });

  it("maps a 401 to a message about the upstream credential", async () => {
    state.mode = "http-401";
    const { result } = await call("orders_get_by_id", { id: "ord_1002" });
    expect(result.content[0]!.text).toContain("The order API refused Arbiter's credentials (HTTP 401)");
  });

  it("maps malformed JSON and network failures to safe messages", async () => {
    state.mode = "malformed";
    const malformed = await call("orders_search", {});
    expect(malformed.result.content[0]!.text).toContain("The order API answered with a body that is not valid JSON");
    expect(malformed.audit.outcome).toBe("upstream-error");
    state.mode = "network";
    const network = await call("orders_search", {});
    expect(network.result.content[0]!.text).toContain("Could not reach the order API (network error)");
    expect(network.audit.outcome).toBe("upstream-error");
  });

  it("names GraphQL errors by class without their text or extensions, and returns partial data with the failed paths", async () => {
    state.mode = "errors-only";
    const failed = await call("orders_search", {});
    expect(failed.result.isError).toBe(true);
    expect(failed.result.content[0]!.text).toContain(
      "The order API reported errors and no data: the order API reported an error. Retry later",
    );
    expect(JSON.stringify(failed.result)).not.toMatch(/stacktrace|Database unavailable/);

    state.mode = "partial";
    const partial = await call("orders_get_by_id", { id: "ord_1002" });
    expect(partial.result.isError).toBeUndefined();
    expect(partial.result.structuredContent).toEqual({
      orderById: null,
      errors: [{ message: "the order API reported an error", path: ["orderById", "total"] }],
    });
    expect(JSON.stringify(partial.result)).not.toContain("could not be computed");
    expect(partial.result._meta.partial).toBe(true);
    expect(partial.audit.outcome).toBe("ok");
  });

  it("keeps the upstream's error text out of the tool result and the log, which names each error's class and path", async () => {
    state.mode = "leaky-errors";
    const warned: string[] = [];
    vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warned.push(args.map(String).join(" ")));
    const { result, audit } = await call("orders_get_by_id", { id: "ord_1002" });
    vi.restoreAllMocks();
    expect(result.structuredContent).toEqual({
      orderById: null,
      errors: [{ message: "access denied", path: ["orderById"] }],
    });
    const shown = JSON.stringify(result);
    for (const secret of [...LEAKED_IN_ERRORS, "permission denied"]) expect(shown).not.toContain(secret);
    expect(JSON.stringify(audit)).not.toContain("permission denied");
    const line = warned.find((entry) => entry.includes("graphql upstream partial answer"));
    expect(JSON.parse(line!).upstreamErrors).toEqual(["FORBIDDEN at orderById"]);
    for (const secret of [...LEAKED_IN_ERRORS, "permission denied"]) expect(warned.join("\n")).not.toContain(secret);
  });

  it("sends the upstream request with redirect: manual and answers a 3xx as an upstream error without its Location", async () => {
    state.mode = "redirect";
    state.seen = [];
    const { result, audit } = await call("orders_get_by_id", { id: "ord_1002" });
    expect(state.seen[0]!.redirect).toBe("manual");
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(
      /^The order API answered with a redirect \(HTTP 302\), which Arbiter does not follow\./,
    );
    expect(JSON.stringify(result)).not.toContain("169.254");
    expect(audit.outcome).toBe("upstream-error");
  });

  it("refuses an answer that does not match the operation's shape, and drops fields it did not select", async () => {
    state.mode = "wrong-shape";
    const wrong = await call("orders_get_by_id", { id: "ord_1002" });
    expect(wrong.result.isError).toBe(true);
    expect(wrong.result.content[0]!.text).toContain("does not match the GetOrderById operation (orderById.total");
    expect(JSON.stringify(wrong.result)).not.toContain("Bruno");

    state.mode = "extra-fields";
    const extra = await call("orders_get_by_id", { id: "ord_1002" });
    expect(extra.result.isError).toBeUndefined();
    expect(extra.result.structuredContent!.orderById).not.toHaveProperty("internalCost");
  });
});

describe("upstream configuration", () => {
  it("calls a service binding named in upstreams.json instead of the public network", async () => {
    const upstreams = getGraphqlCatalog().upstreams;
    const catalog = loadGraphqlCatalog(
      policyFilesWith({
        "graphql/upstreams.json": {
          ...upstreams,
          organizations: {
            ...upstreams.organizations,
            acme: {
              serviceBinding: "ORDERS_API",
              credentialSecret: "GRAPHQL_UPSTREAM_TOKEN_ACME",
              credentialHeader: "X-Api-Key",
            },
          },
        },
      }),
    );
    const { state, fetcher } = scriptedUpstream();
    const env = {
      ...envWithUpstreams(),
      ORDERS_API: {
        fetch: (request: Request) =>
          fetcher(new Request(request.url.replace("upstream.service.internal", "orders.acme.example"), request)),
      },
    };
    const result = await runToolCall(
      toolsFor(catalog, undefined).get("orders_get_by_id")!,
      { id: "ord_1001" },
      callContext(reader, env),
      recordingDeps(),
    );
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ orderById: { id: "ord_1001", status: "PAID" } });
    expect(state.seen[0]!.headers["x-api-key"]).toBe("acme-upstream-secret-123");
    expect(result._meta.dataSource).toBe("organization-upstream");
  });

  it("refuses a misconfigured endpoint with a message naming the var, not its value", async () => {
    const env = { ...envWithUpstreams(), GRAPHQL_UPSTREAM_URL_ACME: "ftp://orders.internal/graphql" };
    const deps = recordingDeps();
    const result = await runToolCall(
      toolsFor(getGraphqlCatalog(), undefined).get("orders_search")!,
      {},
      callContext(reader, env),
      deps,
    );
    expect(result.content[0]!.text).toContain(
      "The order API for this organization is not configured correctly (GRAPHQL_UPSTREAM_URL_ACME must be an http(s) URL)",
    );
    expect(result.content[0]!.text).not.toContain("orders.internal");
    expect(deps.records[0]!.outcome).toBe("upstream-error");
  });

  it("aborts the upstream request when the client cancels the call", async () => {
    const { state, fetcher } = scriptedUpstream();
    state.mode = "hang";
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 50);
    const result = await runToolCall(
      toolsFor(getGraphqlCatalog(), fetcher).get("orders_search")!,
      {},
      callContext(reader, envWithUpstreams(), cancel.signal),
      recordingDeps(),
    );
    expect(result.content[0]!.text).toContain("The request was cancelled before the order API answered");
    expect(state.seen[0]!.aborted()).toBe(true);
  });
});

describe("gateway limits from policy", () => {
  it("aborts the upstream request at the operation's timeout: isError, audit outcome timeout", async () => {
    const catalog = loadGraphqlCatalog(
      policyFilesWith({
        [`${OPS}GetOrderById.json`]: {
          ...getGraphqlCatalog().operations.find((o) => o.name === "GetOrderById")!.policy,
          timeoutMs: 200,
        },
      }),
    );
    const { state, fetcher } = scriptedUpstream();
    state.mode = "hang";
    const deps = recordingDeps();
    const result = await runToolCall(
      toolsFor(catalog, fetcher).get("orders_get_by_id")!,
      { id: "ord_1002" },
      callContext(reader, envWithUpstreams()),
      deps,
    );
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^upstream timed out after 0\.2 s \(correlation id /);
    expect(deps.records[0]!.outcome).toBe("timeout");
    expect(state.seen[0]!.aborted()).toBe(true);
  });

  it("caps the response size", async () => {
    const gateway = { ...getGraphqlCatalog().gateway, maxResponseBytes: 2048 };
    const catalog = loadGraphqlCatalog(policyFilesWith({ "graphql/gateway.json": gateway }));
    const { state, fetcher } = scriptedUpstream();
    state.mode = "huge";
    const result = await runToolCall(
      toolsFor(catalog, fetcher).get("orders_search")!,
      {},
      callContext(reader, envWithUpstreams()),
      recordingDeps(),
    );
    expect(result.content[0]!.text).toContain("The order API answer is larger than the 2048 bytes Arbiter accepts");
  });
});

describe("a mutation enabled through policy", () => {
  const shipped = getGraphqlCatalog().operations.find((o) => o.name === "UpdateOrderStatus")!.policy;
  const catalog = loadGraphqlCatalog(
    policyFilesWith({ [`${OPS}UpdateOrderStatus.json`]: { ...shipped, enabled: true } }),
  );
  const tools = buildCatalog([orderToolRegistrar(catalog, { cache: null })], getPolicy().scopeNames).tools;
  const env = envWithUpstreams();
  const demoEnv = { ...env, GRAPHQL_UPSTREAM_URL_ACME: "" };

  it("becomes a destructive tool needing its own scope, orders.write", () => {
    const tool = tools.get("orders_update_status")!;
    expect(tool.requiredScopes).toEqual(["orders.write"]);
    expect(tool.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(catalog.subsetSdl).toContain("updateOrderStatus(");
  });

  it("is refused without orders.write and runs with it, changing the (demo) order", async () => {
    const tool = tools.get("orders_update_status")!;
    const refusedDeps = recordingDeps();
    const refused = await runToolCall(
      tool,
      { id: "ord_1002", status: "enviado" },
      callContext(reader, demoEnv),
      refusedDeps,
    );
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain('needs the OAuth scope "orders.write"');
    expect(refusedDeps.records[0]!.outcome).toBe("rejected-by-policy");

    const writer = principal("acme", ["orders.read", "orders.write"]);
    const done = await runToolCall(
      tool,
      { id: "ord_1002", status: "enviado" },
      callContext(writer, demoEnv),
      recordingDeps(),
    );
    expect(done.isError).toBeUndefined();
    expect(done.structuredContent).toEqual({
      updateOrderStatus: { id: "ord_1002", status: "SHIPPED", total: 89.9, currency: "BRL" },
    });
    const after = await runToolCall(
      tools.get("orders_get_by_id")!,
      { id: "ord_1002" },
      callContext(writer, demoEnv),
      recordingDeps(),
    );
    expect((after.structuredContent!.orderById as { status: string }).status).toBe("SHIPPED");
  });
});
