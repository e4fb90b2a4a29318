/**
 * The REST API under governance: one audit record per call whatever the answer, 429 with Retry-After once
 * the client's REST quota is used up (before the handler runs), and GET /api/v1/audit/events with
 * filters, cursors, scope and organization checks.
 */
import { env } from "cloudflare:test";
import { SELF } from "../self";
import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../../src/audit/record";
import { auditTrailIn } from "../../../src/audit/trail";
import { getRateLimitPolicy, quotaFor } from "../../../src/ratelimit/policy";
import { API_RESOURCE, BASE, obtainTokens } from "../helpers";

async function api(token: string, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${token}`);
  return SELF.fetch(`${BASE}${path}`, { ...init, headers });
}

async function recordsOf(organizationId: string, correlationId: string): Promise<AuditRecord[]> {
  return (await auditTrailIn(env.AUDIT_LOG)(organizationId).query(organizationId, { correlationId, limit: 10 })).events;
}

describe("REST API governance", () => {
  it("leaves exactly one audit record per call, with the outcome of the answer", async () => {
    const { tokens, client } = await obtainTokens({ user: "ana", scope: "contracts.read", resource: API_RESOURCE });
    const cases: Array<{ path: string; method?: string; status: number; outcome: string; target: string }> = [
      { path: "/api/v1/whoami", status: 200, outcome: "ok", target: "GET /api/v1/whoami" },
      {
        path: "/api/v1/whoami",
        method: "DELETE",
        status: 405,
        outcome: "invalid-input",
        target: "DELETE /api/v1/whoami",
      },
      { path: "/api/v1/nothing-here", status: 404, outcome: "invalid-input", target: "GET /api/v1/nothing-here" },
      { path: "/api/v1/audit/events", status: 403, outcome: "rejected-by-policy", target: "GET /api/v1/audit/events" },
    ];
    for (const c of cases) {
      const response = await api(tokens.access_token, c.path, { method: c.method ?? "GET" });
      expect(response.status, c.path).toBe(c.status);
      const correlationId = response.headers.get("x-correlation-id");
      expect(correlationId).toEqual(expect.any(String));
      const records = await recordsOf("acme", correlationId!);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        kind: "route",
        target: c.target,
        outcome: c.outcome,
        clientId: client.client_id,
        userId: "ana",
        organizationId: "acme",
      });
    }
  });

  it("answers 429 with Retry-After once the client's REST quota is used up, and audits it", async () => {
    const quota = quotaFor(getRateLimitPolicy(), "acme", "rest");
    const { tokens, client } = await obtainTokens({ user: "dev", scope: "contracts.read", resource: API_RESOURCE });
    const ids: string[] = [];
    for (let batch = 0; batch < quota.limit; batch += 10) {
      const responses = await Promise.all(
        Array.from({ length: Math.min(10, quota.limit - batch) }, () => api(tokens.access_token, "/api/v1/whoami")),
      );
      for (const response of responses) {
        expect(response.status).toBe(200);
        ids.push(response.headers.get("x-correlation-id")!);
        await response.body?.cancel();
      }
    }
    const limited = await api(tokens.access_token, "/api/v1/whoami");
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= quota.windowSeconds).toBe(true);
    const body = (await limited.json()) as {
      error: { code: string; message: string; details: Record<string, number> };
    };
    expect(body.error.code).toBe("rate_limited");
    expect(body.error.message).toContain(
      `the REST API allows ${quota.limit} requests per ${quota.windowSeconds} s for this client`,
    );
    expect(body.error.details).toEqual({ limit: quota.limit, windowSeconds: quota.windowSeconds, retryAfter });
    // Other routes share the bucket.
    expect((await api(tokens.access_token, "/api/v1/not-a-route")).status).toBe(429);

    const records = (
      await auditTrailIn(env.AUDIT_LOG)("acme").query("acme", {
        clientId: client.client_id,
        kind: "route",
        limit: 500,
      })
    ).events;
    expect(records.filter((r) => r.outcome === "ok")).toHaveLength(quota.limit);
    expect(records.filter((r) => r.outcome === "rate-limited")).toHaveLength(2);
    expect(records).toHaveLength(quota.limit + 2);
    const recorded = new Set(records.map((r) => r.correlationId));
    for (const id of [...ids, limited.headers.get("x-correlation-id")!]) expect(recorded.has(id)).toBe(true);
  });

  it("serves the audit trail with filters and cursors, and refuses other organizations", async () => {
    const { tokens, client } = await obtainTokens({
      user: "ana",
      scope: "contracts.read audit.read",
      resource: API_RESOURCE,
    });
    for (let i = 0; i < 3; i++) await (await api(tokens.access_token, "/api/v1/whoami")).body?.cancel();

    const first = await api(
      tokens.access_token,
      `/api/v1/audit/events?clientId=${encodeURIComponent(client.client_id)}&target=${encodeURIComponent("GET /api/v1/whoami")}&limit=2`,
    );
    expect(first.status).toBe(200);
    const page1 = (await first.json()) as { organizationId: string; events: AuditRecord[]; nextCursor: string | null };
    expect(page1.organizationId).toBe("acme");
    expect(page1.events).toHaveLength(2);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const next = await api(
      tokens.access_token,
      `/api/v1/audit/events?clientId=${encodeURIComponent(client.client_id)}&target=${encodeURIComponent("GET /api/v1/whoami")}&limit=2&cursor=${page1.nextCursor}`,
    );
    const page2 = (await next.json()) as { events: AuditRecord[]; nextCursor: string | null };
    expect(page2.events).toHaveLength(1);
    expect(page2.nextCursor).toBeNull();
    expect(new Set([...page1.events, ...page2.events].map((e) => e.correlationId)).size).toBe(3);

    const grants = (await (
      await api(
        tokens.access_token,
        `/api/v1/audit/events?kind=oauth&target=grant&clientId=${encodeURIComponent(client.client_id)}`,
      )
    ).json()) as { events: AuditRecord[] };
    expect(grants.events).toMatchObject([{ kind: "oauth", target: "grant", outcome: "ok", userId: "ana" }]);

    const badOutcome = await api(tokens.access_token, "/api/v1/audit/events?outcome=maybe");
    expect(badOutcome.status).toBe(400);
    expect(((await badOutcome.json()) as { error: { message: string } }).error.message).toContain("outcome");
    const unknown = await api(tokens.access_token, "/api/v1/audit/events?colour=blue");
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain(
      'Unknown query parameter "colour"',
    );
    expect((await api(tokens.access_token, "/api/v1/audit/events?limit=1000")).status).toBe(400);
    expect((await api(tokens.access_token, "/api/v1/audit/events?cursor=abc")).status).toBe(400);

    const crossOrg = await api(tokens.access_token, "/api/v1/audit/events?organizationId=globex");
    expect(crossOrg.status).toBe(403);
    expect(((await crossOrg.json()) as { error: { message: string } }).error.message).toContain(
      "your own organization (acme)",
    );
    expect((await api(tokens.access_token, "/api/v1/audit/events?organizationId=acme&limit=1")).status).toBe(200);

    const gus = await obtainTokens({ user: "gus", scope: "audit.read", resource: API_RESOURCE });
    const globex = (await (await api(gus.tokens.access_token, "/api/v1/audit/events?limit=100")).json()) as {
      organizationId: string;
      events: AuditRecord[];
    };
    expect(globex.organizationId).toBe("globex");
    expect(globex.events.length).toBeGreaterThan(0);
    expect(globex.events.every((e) => e.organizationId === "globex")).toBe(true);
  });
});
