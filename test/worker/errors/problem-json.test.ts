/** Every REST error is RFC 9457 problem details, with the pre-problem+json `error` member kept for one release. */
import { env } from "cloudflare:test";
import { SELF } from "../self";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiHandler, type ApiRoute } from "../../../src/api/router";
import type { Env } from "../../../src/env";
import { API_RESOURCE, BASE } from "../helpers";
import { restToken } from "../contracts-api/api-helpers";

async function expectProblem(response: Response, status: number, code: string): Promise<Record<string, any>> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const body = (await response.json()) as Record<string, any>;
  expect(body).toMatchObject({
    type: `urn:arbiter:problem:${code}`,
    status,
    code,
    title: expect.any(String),
    detail: expect.any(String),
  });
  expect(body.error).toMatchObject({ code, message: body.detail });
  const correlationId = response.headers.get("x-correlation-id");
  if (correlationId)
    expect(body).toMatchObject({ correlationId, instance: `urn:uuid:${correlationId}`, error: { correlationId } });
  return body;
}

let token: string;
beforeAll(async () => {
  token = await restToken("ana", "contracts.read");
});

const get = (path: string, init: RequestInit = {}) =>
  SELF.fetch(`${BASE}${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });

describe("REST errors through the Worker", () => {
  it("every problem names its occurrence (the correlation id) in the body", async () => {
    const response = await get("/api/v1/nothing-here");
    expect(response.headers.get("x-correlation-id")).toMatch(/^[0-9a-f-]{36}$/);
    await expectProblem(response, 404, "not_found");
  });

  it("the router's 404, 405 and 403", async () => {
    await expectProblem(await get("/api/v1/nothing-here"), 404, "not_found");
    await expectProblem(await get("/api/v1/whoami", { method: "DELETE" }), 405, "method_not_allowed");
    const refused = await expectProblem(await get("/api/v1/audit/events"), 403, "insufficient_scope");
    expect(refused.details).toEqual({ missingScopes: ["audit.read"] });
    expect(refused.error.details).toEqual(refused.details);
  });

  it("route errors and chat errors", async () => {
    await expectProblem(await get("/api/v1/projects/Bad Name"), 400, "invalid_project_name");
    await expectProblem(
      await get("/chat", { method: "POST", headers: { "Content-Type": "text/plain" }, body: "hi" }),
      400,
      "invalid_request",
    );
  });
});

describe("the router's 429 and 500", () => {
  const principalContext = () =>
    ({
      props: { organizationId: "acme", userId: "ana", role: "admin", name: "Ana" },
      auth: { token: "t", audience: API_RESOURCE, scope: ["contracts.read"], clientId: "c" },
      waitUntil() {},
      passThroughOnException() {},
    }) as unknown as ExecutionContext;
  const throwing: ApiRoute = {
    method: "GET",
    path: "/api/v1/boom",
    requiredScopes: [],
    handle: async () => {
      throw new Error("secret detail");
    },
  };
  const audit = () => ({ record: async () => {} });

  it("500 carries the correlation id, never the exception", async () => {
    const handler = createApiHandler([throwing], { audit });
    const response = await handler.fetch(new Request(`${BASE}/api/v1/boom`), env as unknown as Env, principalContext());
    const body = await expectProblem(response, 500, "internal_error");
    expect(body.correlationId).toBe(response.headers.get("x-correlation-id"));
    expect(JSON.stringify(body)).not.toContain("secret detail");
  });

  it("429 keeps Retry-After and the quota details", async () => {
    const rateLimiter = () => ({
      check: async () => ({ allowed: false as const, limit: 5, windowSeconds: 60, retryAfterSeconds: 7 }),
    });
    const handler = createApiHandler([throwing], { audit, rateLimiter });
    const response = await handler.fetch(new Request(`${BASE}/api/v1/boom`), env as unknown as Env, principalContext());
    expect(response.headers.get("retry-after")).toBe("7");
    const body = await expectProblem(response, 429, "rate_limited");
    expect(body.details).toEqual({ limit: 5, windowSeconds: 60, retryAfter: 7 });
  });
});
