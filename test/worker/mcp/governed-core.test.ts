/**
 * The governed core seen from outside (issue 11 item 2): resource reads, subscription changes and prompt gets are
 * rate limited and audited like tool calls in both protocol eras; one correlation id per request, the same in the
 * answer, its X-Correlation-Id header and the audit record; /chat leaves one record under the id its body and header
 * show; every failure kind is answered by the one mapping with the same status, outcome and JSON-RPC code.
 * Runs at the handler (harness.ts) with verified principals: OAuth itself is tested elsewhere.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { auditTrailIn } from "../../../src/audit/trail";
import type { AuditQuery } from "../../../src/audit/store-rpc";
import { FAILURE_CLASSES, Failure, type FailureKind } from "../../../src/core/failure";
import { failureAsJsonRpcError, failureAsProblem, failureAsToolResult } from "../../../src/core/failure-mapping";
import { getRateLimitPolicy, quotaFor } from "../../../src/ratelimit/policy";
import { fetchAs, mcpPrincipal, restPrincipal, type Verified } from "../harness";
import { initializeSession, MODERN_ENVELOPE, mcpPost, modernPost, readRpc } from "../helpers";

const ACTIVE = "spec://active/contract";

/** The organization's audit records matching `filter`, waiting (bounded) until at least `atLeast` are stored. */
async function records(filter: Omit<AuditQuery, "limit">, atLeast = 1) {
  const store = auditTrailIn(env.AUDIT_LOG)("acme");
  const deadline = Date.now() + 5000;
  for (;;) {
    const page = await store.query("acme", { ...filter, limit: 100 });
    if (page.events.length >= atLeast || Date.now() > deadline) return page.events;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function sessionCall(token: Verified, session: string, method: string, params: unknown, id: number) {
  const response = await mcpPost(
    token,
    { jsonrpc: "2.0", id, method, params },
    { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
  );
  const [message] = await readRpc(response);
  return { response, message: message! };
}

async function modernCall(token: Verified, method: string, params: Record<string, unknown>, id: number) {
  return modernRequest(token, method, params, {}, id);
}

async function modernRequest(
  token: Verified,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string>,
  id: number,
) {
  const response = await modernPost(token, method, params, headers, id);
  const [message] = await readRpc(response);
  return { response, message: message! };
}

describe("resources and prompts are governed like tool calls", () => {
  it("rate limits and audits resource reads in the session lane (2025-11-25)", async () => {
    const quota = quotaFor(getRateLimitPolicy(), "acme", "resource:active-contract");
    const caller = mcpPrincipal("ana", "contracts.read");
    const session = await initializeSession(caller);
    for (let i = 0; i < quota.limit; i++) {
      const { message } = await sessionCall(caller, session, "resources/read", { uri: ACTIVE }, 10 + i);
      // No default project yet: an in-band answer, but not the rate limit.
      expect(message.error?.code ?? 0, JSON.stringify(message.error)).not.toBe(-32000);
    }
    const { message: refused } = await sessionCall(caller, session, "resources/read", { uri: ACTIVE }, 99);
    expect(refused.error.code).toBe(-32000);
    expect(refused.error.message).toMatch(
      new RegExp(
        `^Rate limit reached: spec://active/contract allows ${quota.limit} reads per ${quota.windowSeconds} s for this client\\. Retry after \\d+ s`,
      ),
    );
    expect(refused.error.data).toMatchObject({
      code: "rate_limited",
      limit: quota.limit,
      windowSeconds: quota.windowSeconds,
    });
    expect(refused.error.data.retryAfter).toBeGreaterThan(0);

    const audited = await records({ clientId: caller.auth.clientId, kind: "resource" }, quota.limit + 1);
    expect(audited).toHaveLength(quota.limit + 1);
    expect(audited.every((record) => record.target === ACTIVE)).toBe(true);
    expect(audited.filter((record) => record.outcome === "rate-limited")).toHaveLength(1);
  });

  it("rate limits and audits prompt gets in the stateless lane (2026-07-28)", async () => {
    const quota = quotaFor(getRateLimitPolicy(), "acme", "prompt:spec_driven_task");
    const caller = mcpPrincipal("mia", "contracts.read");
    for (let i = 0; i < quota.limit; i++) {
      const { message } = await modernCall(
        caller,
        "prompts/get",
        { name: "spec_driven_task", arguments: { project: "orders" } },
        10 + i,
      );
      expect(message.error?.code ?? 0, JSON.stringify(message.error)).not.toBe(-32000);
    }
    const { response, message: refused } = await modernCall(
      caller,
      "prompts/get",
      { name: "spec_driven_task", arguments: { project: "orders" } },
      99,
    );
    expect(refused.error.code).toBe(-32000);
    expect(refused.error.message).toMatch(
      /^Rate limit reached: the prompt spec_driven_task allows \d+ requests per \d+ s for this client\. Retry after \d+ s/,
    );
    // The one correlation id: the header's is the error's and the refusal's audit record's.
    const correlationId = response.headers.get("X-Correlation-Id");
    expect(refused.error.data.correlationId).toBe(correlationId);
    const [record] = await records({ correlationId: correlationId! });
    expect(record).toMatchObject({
      kind: "prompt",
      target: "spec_driven_task",
      outcome: "rate-limited",
      clientId: caller.auth.clientId,
    });

    const audited = await records({ clientId: caller.auth.clientId, kind: "prompt" }, quota.limit + 1);
    expect(audited).toHaveLength(quota.limit + 1);
  });

  it("audits a refused argument of a prompt as invalid input, in both eras", async () => {
    const caller = mcpPrincipal("ana", "contracts.read");
    const session = await initializeSession(caller);
    const legacy = await sessionCall(
      caller,
      session,
      "prompts/get",
      { name: "spec_driven_task", arguments: { project: "Not A Name!" } },
      5,
    );
    expect(legacy.message.error.code).toBe(-32602);
    const modern = await modernCall(
      caller,
      "prompts/get",
      { name: "spec_driven_task", arguments: { project: "Not A Name!" } },
      6,
    );
    expect(modern.message.error.code).toBe(-32602);
    const audited = await records({ clientId: caller.auth.clientId, kind: "prompt", outcome: "invalid-input" }, 2);
    expect(audited.map((record) => record.correlationId).sort()).toEqual(
      [legacy.response.headers.get("X-Correlation-Id"), modern.response.headers.get("X-Correlation-Id")].sort(),
    );
  });
});

describe("one correlation id per request", () => {
  it("is the same in a tools/call result, its header and its audit record, in both eras", async () => {
    const caller = mcpPrincipal("ana", "orders.read");
    const session = await initializeSession(caller);
    const legacy = await sessionCall(caller, session, "tools/call", { name: "whoami", arguments: {} }, 7);
    const modern = await modernCall(caller, "tools/call", { name: "whoami", arguments: {} }, 8);
    for (const { response, message } of [legacy, modern]) {
      const header = response.headers.get("X-Correlation-Id");
      expect(header).toMatch(/^[0-9a-f-]{36}$/);
      expect(message.result._meta.correlationId).toBe(header);
      const audited = await records({ correlationId: header! });
      expect(audited).toHaveLength(1);
      expect(audited[0]).toMatchObject({ kind: "tool", target: "whoami", outcome: "ok" });
    }
    expect(legacy.response.headers.get("X-Correlation-Id")).not.toBe(modern.response.headers.get("X-Correlation-Id"));
  });

  it("replaces a correlation id the client sends with the request's own", async () => {
    const caller = mcpPrincipal("ana", "orders.read");
    const forged = "00000000-0000-4000-8000-000000000000";
    const response = await mcpPost(
      caller,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
      { "X-Correlation-Id": forged },
    );
    expect(response.headers.get("X-Correlation-Id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get("X-Correlation-Id")).not.toBe(forged);
  });

  it("gives /chat one audit record, under the id its body and its header show", async () => {
    const caller = restPrincipal("mia", "orders.search orders.read");
    for (const [text, expected] of [
      ["paid orders", { kind: "tool", target: "orders_search", outcome: "ok" }],
      ["hello", { kind: "route", target: "POST /api/chat", outcome: "ok" }],
    ] as const) {
      const response = await fetchAs(caller, "/api/chat", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ text }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { correlationId: string };
      expect(body.correlationId).toBe(response.headers.get("X-Correlation-Id"));
      const audited = await records({ correlationId: body.correlationId });
      // Give a second record the time to appear if one were written.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await records({ correlationId: body.correlationId })).toHaveLength(1);
      expect(audited[0], text).toMatchObject(expected);
    }
  });
});

describe("a call of a tool that does not exist", () => {
  it("is answered as before and leaves one audit record, in both eras", async () => {
    const caller = mcpPrincipal("ana", "orders.read");
    const session = await initializeSession(caller);
    const legacy = await sessionCall(
      caller,
      session,
      "tools/call",
      { name: "orders_delete_all", arguments: { confirm: true } },
      9,
    );
    const modern = await modernCall(
      caller,
      "tools/call",
      { name: "orders_delete_all", arguments: { confirm: true } },
      10,
    );
    for (const { response, message } of [legacy, modern]) {
      expect(message.error?.code).toBe(-32602);
      const audited = await records({ correlationId: response.headers.get("X-Correlation-Id")! });
      expect(audited).toHaveLength(1);
      expect(audited[0]).toMatchObject({
        kind: "tool",
        target: "orders_delete_all",
        outcome: "invalid-input",
        reason: "tools/call: unknown tool",
      });
    }
  });

  it("counts against a quota, and identical refusals of one request fold into one record with the count", async () => {
    const caller = mcpPrincipal("ana", "orders.read", { clientId: "unknown-tool-flood" });
    const { limit } = quotaFor(getRateLimitPolicy(), "acme", "unknown-tools");
    const batch = (count: number, first: number) =>
      mcpPost(
        caller,
        Array.from({ length: count }, (_, index) => ({
          jsonrpc: "2.0",
          id: first + index,
          method: "tools/call",
          params: { name: "orders_delete_all", arguments: {}, _meta: MODERN_ENVELOPE },
        })),
        { "MCP-Protocol-Version": "2026-07-28" },
      );
    const within = await batch(limit - 5, 100);
    expect(within.status).not.toBe(429);
    const folded = await records({ correlationId: within.headers.get("X-Correlation-Id")! });
    expect(folded).toHaveLength(1);
    expect(folded[0]).toMatchObject({
      target: "orders_delete_all",
      outcome: "invalid-input",
      reason: `tools/call: unknown tool (x${limit - 5} in one request)`,
    });

    const over = await batch(10, 200);
    expect(over.status).toBe(429);
    expect(((await over.json()) as { error: { message: string } }).error.message).toMatch(
      /calls of tools that do not exist count against a quota of \d+ per \d+ s/,
    );
    const limited = await records({ correlationId: over.headers.get("X-Correlation-Id")! });
    expect(limited).toHaveLength(1);
    expect(limited[0]).toMatchObject({
      target: "orders_delete_all",
      outcome: "rate-limited",
      reason: "tools/call: unknown tool, rate limited (x10 in one request)",
    });
  });

  it("records a name that is not a tool name as such, never the client's text", async () => {
    const caller = mcpPrincipal("ana", "orders.read");
    const { response, message } = await modernCall(
      caller,
      "tools/call",
      { name: "<script>alert(1)</script>", arguments: {} },
      11,
    );
    expect(message.error).toBeDefined();
    const [record] = await records({ correlationId: response.headers.get("X-Correlation-Id")! });
    expect(record).toMatchObject({ kind: "tool", target: "(not a tool name)", outcome: "invalid-input" });
    expect(JSON.stringify(record)).not.toContain("script");
  });
});

describe("one failure type, one mapping", () => {
  /**
   * What each surface answers for each kind, written out here rather than read from FAILURE_CLASSES, so that a wrong
   * entry in the mapping's table fails: REST status and Retry-After, JSON-RPC code (resources, prompts,
   * subscriptions), audit outcome; a tool result is always isError with the message and the correlation id.
   */
  const EXPECTED: Record<FailureKind, { status: number; jsonRpcCode: number; outcome: string }> = {
    invalid_input: { status: 400, jsonRpcCode: -32602, outcome: "invalid-input" },
    unauthenticated: { status: 401, jsonRpcCode: -32600, outcome: "rejected-by-policy" },
    insufficient_scope: { status: 403, jsonRpcCode: -32600, outcome: "rejected-by-policy" },
    forbidden: { status: 403, jsonRpcCode: -32600, outcome: "rejected-by-policy" },
    not_found: { status: 404, jsonRpcCode: -32002, outcome: "invalid-input" },
    method_not_allowed: { status: 405, jsonRpcCode: -32601, outcome: "invalid-input" },
    conflict: { status: 409, jsonRpcCode: -32602, outcome: "invalid-input" },
    too_large: { status: 413, jsonRpcCode: -32602, outcome: "invalid-input" },
    unprocessable: { status: 422, jsonRpcCode: -32602, outcome: "invalid-input" },
    rate_limited: { status: 429, jsonRpcCode: -32000, outcome: "rate-limited" },
    insufficient_storage: { status: 507, jsonRpcCode: -32000, outcome: "rejected-by-policy" },
    cannot_verify: { status: 409, jsonRpcCode: -32603, outcome: "error" },
    upstream_error: { status: 502, jsonRpcCode: -32603, outcome: "upstream-error" },
    unavailable: { status: 503, jsonRpcCode: -32603, outcome: "upstream-error" },
    timeout: { status: 504, jsonRpcCode: -32603, outcome: "timeout" },
    internal: { status: 500, jsonRpcCode: -32603, outcome: "error" },
  };

  it("has an expected row for exactly the kinds there are", () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(FAILURE_CLASSES).sort());
  });

  it.each(Object.keys(EXPECTED) as FailureKind[])("answers %s as the fixed table says on every surface", (kind) => {
    const expected = EXPECTED[kind];
    const failure = new Failure(kind, `what went wrong (${kind})`, kind === "rate_limited" ? { retryAfter: 7 } : {});
    expect(failure.outcome).toBe(expected.outcome);

    expect(failureAsToolResult(failure, "c-1")).toEqual({
      content: [{ type: "text", text: `what went wrong (${kind}) (correlation id c-1)` }],
      isError: true,
      _meta: { correlationId: "c-1", ...(kind === "rate_limited" ? { retryAfter: 7 } : {}) },
    });

    const rpc = failureAsJsonRpcError(failure, "c-1");
    expect(rpc.code).toBe(expected.jsonRpcCode);
    // Only an internal failure names the correlation id in the message; every one carries it in data.
    expect(rpc.message).toBe(
      kind === "internal" ? `what went wrong (${kind}) (correlation id c-1)` : `what went wrong (${kind})`,
    );
    expect(rpc.data).toEqual({
      code: kind,
      correlationId: "c-1",
      ...(kind === "rate_limited" ? { retryAfter: 7 } : {}),
    });

    const problem = failureAsProblem(failure);
    expect(problem).toEqual({
      status: expected.status,
      code: kind,
      message: `what went wrong (${kind})`,
      ...(kind === "rate_limited" ? { details: { retryAfter: 7 } } : {}),
      headers: kind === "rate_limited" ? { "Retry-After": "7" } : {},
    });
  });
});

describe("era parity: both MCP eras and REST answer the same failure with the same shape", () => {
  type Case = {
    name: string;
    scope: string;
    tool: string;
    arguments: Record<string, unknown>;
    rest: string;
    code: string;
    outcome: string;
    status: number;
  };
  const CASES: Case[] = [
    {
      name: "an unknown project",
      scope: "contracts.read",
      tool: "spec_contracts_list",
      arguments: { project: "nope" },
      rest: "/api/v1/projects/nope/contracts",
      code: "unknown_project",
      outcome: "invalid-input",
      status: 404,
    },
    {
      name: "a missing scope",
      scope: "orders.read",
      tool: "spec_contracts_list",
      arguments: { project: "nope" },
      rest: "/api/v1/projects/nope/contracts",
      code: "insufficient_scope",
      outcome: "rejected-by-policy",
      status: 403,
    },
    {
      name: "an invalid limit",
      scope: "contracts.read",
      tool: "spec_contracts_list",
      arguments: { project: "nope", limit: 0 },
      rest: "/api/v1/projects/nope/contracts?limit=0",
      code: "invalid_input",
      outcome: "invalid-input",
      status: 400,
    },
  ];
  /**
   * Where REST differs from MCP, each with its reason; a case not listed says the same words on every surface
   * (an unknown project: the contracts domain's one failure names both next steps). The two MCP eras may differ
   * in nothing but the correlation id and the members listed in ERA_ONLY.
   */
  const REST_DIFFERENCES: Record<string, { code?: string; message: string }> = {
    "a missing scope": {
      message:
        "REST names the credential (access token or CI key) and how to get the scope; MCP asks to reconnect and grant it",
    },
    "an invalid limit": {
      code: "invalid_query",
      message: "REST names the query parameter as the client wrote it; MCP names the tool argument",
    },
  };

  /** _meta members only the 2026-07-28 era sends, and why. */
  const ERA_ONLY: Record<string, string> = {
    "io.modelcontextprotocol/serverInfo": "a stateless request has no initialize, so each result names the server",
  };

  /** An MCP answer (a tool result, or the JSON-RPC error of the HTTP step-up) without its correlation id. */
  function withoutCorrelation(message: Record<string, any>, correlationId: string) {
    const strip = (text: string) => text.replace(` (correlation id ${correlationId})`, "");
    if (message.error) {
      const { correlationId: _, ...data } = message.error.data ?? {};
      return {
        isError: true,
        jsonRpcCode: message.error.code as number | undefined,
        text: strip(message.error.message),
        meta: data as Record<string, unknown>,
      };
    }
    const { correlationId: _, ...meta } = message.result._meta as Record<string, unknown>;
    return {
      isError: message.result.isError as boolean | undefined,
      jsonRpcCode: undefined,
      text: strip(message.result.content[0].text),
      meta,
    };
  }

  it("keeps the listed differences to the cases there are", () => {
    const names = CASES.map((c) => c.name);
    expect(Object.keys(REST_DIFFERENCES).filter((name) => !names.includes(name))).toEqual([]);
    // The cases every surface answers in the same words.
    expect(names.filter((name) => !(name in REST_DIFFERENCES))).toEqual(["an unknown project"]);
  });

  it.each(CASES)(
    "answers $name the same way in both eras, and as REST does but for the listed differences",
    async (c) => {
      const mcp = mcpPrincipal("ana", c.scope);
      const session = await initializeSession(mcp);
      const legacy = await sessionCall(mcp, session, "tools/call", { name: c.tool, arguments: c.arguments }, 21);
      const modern = await modernRequest(
        mcp,
        "tools/call",
        { name: c.tool, arguments: c.arguments },
        { "Mcp-Param-Project": String(c.arguments.project) },
        22,
      );
      const rest = await fetchAs(restPrincipal("ana", c.scope), c.rest);

      const legacyId = legacy.response.headers.get("X-Correlation-Id")!;
      const modernId = modern.response.headers.get("X-Correlation-Id")!;
      const legacyShape = withoutCorrelation(legacy.message, legacyId);
      const modernShape = withoutCorrelation(modern.message, modernId);
      for (const member of Object.keys(ERA_ONLY)) delete modernShape.meta[member];
      expect(modernShape).toEqual(legacyShape);
      expect(legacyShape.isError).toBe(true);
      // A tool result names its code in _meta when it is more precise than the kind (the kind is the code otherwise).
      expect(legacyShape.meta.code ?? c.code).toBe(c.code);

      const problem = (await rest.json()) as { status: number; code: string; detail: string; correlationId: string };
      const differs: { code?: string; message?: string } = REST_DIFFERENCES[c.name] ?? {};
      expect(rest.status).toBe(c.status);
      expect(problem.status).toBe(c.status);
      expect(problem.code).toBe(differs.code ?? c.code);
      if (differs.message) expect(problem.detail).not.toBe(legacyShape.text);
      else expect(problem.detail).toBe(legacyShape.text);

      for (const correlationId of [legacyId, modernId, problem.correlationId]) {
        const [record] = await records({ correlationId });
        expect(record?.outcome, `${c.name}: audit outcome of ${correlationId}`).toBe(c.outcome);
      }
    },
  );
});
