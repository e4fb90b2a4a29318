/**
 * The benchmark's baseline: a `tools/call` of `bench_bare` answered by the same session (same OAuth front, same
 * McpAgent Durable Object, same transport) with no scope check, rate limit or audit. `npm run bench:mcp` compares
 * it with the governed `whoami` to measure what governance costs.
 *
 * Beside it, `bench_governed`: the same answer through the governed core (runToolCall: scope check, rate-limit
 * decision, argument and output validation, correlation, audit record), so the benchmark measures governance alone.
 *
 * Both exist only when ARBITER_BENCH_BARE is "true" AND PUBLIC_URL is a loopback URL: wrangler.toml never sets the
 * variable (test/node/repo-config.test.ts checks it), and a deployment serves a public origin, so a deployed
 * Worker cannot turn it on even with `--var`. It is not listed by tools/list, and it still needs a valid token.
 */
import { z } from "zod";
import type { Env } from "../env";
import type { ToolDefinition } from "./context";

export const BENCH_BARE_TOOL = "bench_bare";
export const BENCH_GOVERNED_TOOL = "bench_governed";
const BENCH_TOOLS: ReadonlySet<string> = new Set([BENCH_BARE_TOOL, BENCH_GOVERNED_TOOL]);
const NO_TOOLS: ReadonlySet<string> = new Set();

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function benchBareEnabled(env: Pick<Env, "ARBITER_BENCH_BARE" | "PUBLIC_URL">): boolean {
  if (env.ARBITER_BENCH_BARE !== "true") return false;
  try {
    return LOOPBACK_HOSTS.has(new URL(env.PUBLIC_URL).hostname);
  } catch {
    return false;
  }
}

/**
 * The tools served beside the catalog: both benchmark tools when they are on, none otherwise. The /mcp front audits
 * calls of unknown tools on their own (front/unknown-tools.ts), so it must not take these for unknown ones: bench_governed
 * would then pay for governance twice, and bench_bare would not be bare.
 */
export function toolsServedBesideCatalog(env: Pick<Env, "ARBITER_BENCH_BARE" | "PUBLIC_URL">): ReadonlySet<string> {
  return benchBareEnabled(env) ? BENCH_TOOLS : NO_TOOLS;
}

/** A constant answer shaped like a tool result (structured content and its JSON text). */
export function benchBareResult() {
  const structuredContent = { ok: true, tool: BENCH_BARE_TOOL };
  return { content: [{ type: "text" as const, text: JSON.stringify(structuredContent, null, 2) }], structuredContent };
}

/** `bench_bare`'s answer as a governed tool: nothing but what the core adds differs between the two. */
export const benchGovernedTool: ToolDefinition = {
  name: BENCH_GOVERNED_TOOL,
  title: "Benchmark: governed no-op",
  description: "Benchmark only: bench_bare's constant answer through the governed core.",
  inputSchema: z.object({}),
  outputSchema: z.object({ ok: z.boolean(), tool: z.string() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  requiredScopes: [],
  async handler() {
    const { structuredContent, content } = benchBareResult();
    return { structuredContent, text: content[0]!.text };
  },
};
