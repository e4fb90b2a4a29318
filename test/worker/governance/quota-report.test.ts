/**
 * whoami gets its quotas with its own rate-limit decision: the pipeline's limiter (src/mcp/deps.ts) asks the
 * coordinator to report them in the same call, right after counting this one, so showing them costs no second
 * call to the coordinator, and decisions stay exact under concurrency.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { logAuditSink } from "../../../src/audit/record";
import type { CallContext } from "../../../src/mcp/context";
import type { Principal } from "../../../src/core/principal";
import { pipelineDepsFor } from "../../../src/mcp/deps";
import { runToolCall } from "../../../src/mcp/pipeline";
import { getCatalog } from "../../../src/mcp/deployment-catalog";
import { CoordinatedRateLimiter } from "../../../src/ratelimit/limiter";

afterEach(() => {
  vi.restoreAllMocks();
});

const principalOf = (clientId: string): Principal => ({
  organizationId: "acme",
  userId: "ana",
  clientId,
  role: "admin",
  scopes: [],
});
const context = (principal: Principal): Omit<CallContext, "correlationId"> => ({
  principal,
  env,
  session: { get: async () => undefined, put: async () => undefined },
  signal: new AbortController().signal,
  progress: async () => undefined,
});
// The deployment's limiter (with its reporting), and an audit sink that only logs, so these tests count limiter calls only.
const deps = () => ({ ...pipelineDepsFor(env), audit: logAuditSink });
type Quotas = Array<{ tool: string; remaining: number | null; limit: number }>;

describe("quotas reported with the rate-limit decision", () => {
  it("gives whoami its quotas without a separate usage read, this call counted", async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const usage = vi.spyOn(CoordinatedRateLimiter.prototype, "usage");
    const principal = principalOf(`client-${crypto.randomUUID()}`);
    const whoami = getCatalog().tools.get("whoami")!;
    await runToolCall(whoami, {}, context(principal), deps());
    const result = await runToolCall(whoami, {}, context(principal), deps());
    expect(result.isError).toBeFalsy();
    const quotas = (result.structuredContent as { quotas: Quotas }).quotas;
    expect(quotas.find((q) => q.tool === "whoami")).toMatchObject({ limit: 30, remaining: 28 });
    expect(quotas.find((q) => q.tool === "orders_search")).toMatchObject({ limit: 30, remaining: 30 });
    expect(new Set(quotas.map((q) => q.tool))).toEqual(new Set(getCatalog().tools.keys()));
    expect(usage).not.toHaveBeenCalled();
  });

  it("stays exact under concurrency: 40 concurrent whoami calls against 30 admit 30, each counted in what it shows", async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const principal = principalOf(`client-${crypto.randomUUID()}`);
    const whoami = getCatalog().tools.get("whoami")!;
    const results = await Promise.all(
      Array.from({ length: 40 }, () => runToolCall(whoami, {}, context(principal), deps())),
    );
    const admitted = results.filter((r) => !r.isError);
    expect(admitted).toHaveLength(30);
    expect(results.filter((r) => r.isError && /Rate limit reached/.test(r.content[0]!.text))).toHaveLength(10);
    for (const result of admitted) {
      const own = (result.structuredContent as { quotas: Quotas }).quotas.find((q) => q.tool === "whoami")!;
      expect(own.remaining).not.toBeNull();
      expect(own.remaining!).toBeLessThanOrEqual(29);
    }
  });
});
