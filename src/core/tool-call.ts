/**
 * A tool call through the governed core, as every surface that calls a tool runs it (both MCP lanes through
 * src/mcp/pipeline.ts, and /chat): the tool's name is its audit target and its quota, its scopes are checked, its
 * input schema validates the arguments (so invalid input is audited), then its handler runs and its output schema
 * checks what the handler answered: an answer that does not match it is an internal failure, logged, never sent.
 */
import type { z } from "zod";
import { humaniseIssues } from "../lib/humanise";
import { logError } from "../lib/log";
import { Failure } from "./failure";
import { type GovernanceDeps, type Governed, type GovernedOperation, governed } from "./governed";
import type { Principal } from "./principal";
import type { RateLimitDecision } from "../ratelimit/hook";

/** What the core needs of a tool: its name, the scopes it needs and its two schemas. */
export interface GovernedTool<In = unknown> {
  readonly name: string;
  readonly requiredScopes: readonly string[];
  readonly inputSchema: z.ZodType<In>;
  readonly outputSchema: z.ZodType;
}

/** A tool as the core governs it: its own quota, its scopes, audited under its name. */
export function toolOperation(tool: Pick<GovernedTool, "name" | "requiredScopes">): GovernedOperation {
  return {
    kind: "tool",
    target: tool.name,
    label: tool.name,
    requiredScopes: tool.requiredScopes,
    rateLimit: { target: tool.name, unit: "calls" },
  };
}

/**
 * Runs `tool` with `rawArguments`: `run` gets the validated input (and the rate limiter's decision) and answers the
 * tool's result; its `structuredContent` is checked against the output schema and replaced by what the schema
 * declares, and only that (clients such as SDK 1.x refuse a result that carries more than the listing advertises).
 */
export async function governedToolCall<In, R extends { structuredContent: unknown }>(
  tool: GovernedTool<In>,
  rawArguments: unknown,
  call: { principal: Principal; correlationId: string; deps: GovernanceDeps },
  run: (input: In, decision: RateLimitDecision | undefined) => Promise<R>,
): Promise<Governed<R & { structuredContent: Record<string, unknown> }>> {
  return governed(
    toolOperation(tool),
    { principal: call.principal, correlationId: call.correlationId, arguments: rawArguments, deps: call.deps },
    {
      input: tool.inputSchema,
      async handler(input, decision) {
        const output = await run(input, decision);
        const checked = tool.outputSchema.safeParse(output.structuredContent);
        if (!checked.success) {
          logError("tool output failed its schema", {
            tool: tool.name,
            correlationId: call.correlationId,
            issues: humaniseIssues(checked.error),
          });
          throw new Failure("internal", `${tool.name} failed: internal error.`).auditedAs(
            "output did not match the tool's outputSchema",
          );
        }
        return { ...output, structuredContent: checked.data as Record<string, unknown> };
      },
    },
  );
}
