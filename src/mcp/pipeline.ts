/**
 * The tool adapter of the governed core: every tools/call of both MCP eras (and the tool calls /chat makes) runs
 * through `governed` (src/core/governed.ts): scope check -> rate limit -> input validation -> handler -> output
 * check -> audit, and a Failure is mapped to the tool result by src/core/failure-mapping.ts. Tools never see the
 * raw request and cannot skip a step: the servers hand every tools/call here.
 */
import { newCorrelationId } from "../core/correlation";
import { Failure } from "../core/failure";
import { failureAsToolResult } from "../core/failure-mapping";
import { governed, type GovernanceDeps, type GovernedOperation } from "../core/governed";
import { humaniseIssues } from "../lib/humanise";
import { logError } from "../lib/log";
import type { CallContext, ToolDefinition } from "./context";

export interface ToolCallResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta: Record<string, unknown>;
}

export type PipelineDeps = GovernanceDeps;

/** A tool as the core governs it: its own quota, its scopes, audited under its name. */
export function toolOperation(tool: ToolDefinition): GovernedOperation {
  return {
    kind: "tool",
    target: tool.name,
    label: tool.name,
    requiredScopes: tool.requiredScopes,
    rateLimit: { target: tool.name, unit: "calls" },
  };
}

/** A tool call's context; without a correlation id (a caller outside a request, such as a test) one is made. */
export type ToolCallContext = Omit<CallContext, "correlationId"> & { correlationId?: string };

export async function runToolCall(
  tool: ToolDefinition,
  rawArguments: unknown,
  callContext: ToolCallContext,
  deps: PipelineDeps,
): Promise<ToolCallResult> {
  const correlationId = callContext.correlationId ?? newCorrelationId();
  const context: CallContext = { ...callContext, correlationId };
  const outcome = await governed(
    toolOperation(tool),
    { principal: context.principal, correlationId, arguments: rawArguments, deps },
    {
      input: tool.inputSchema,
      async handler(input, decision) {
        // `quotas`: what the limiter reported with its decision for a tool with reportsQuotaOf (whoami; see deps.ts).
        const usage = decision?.allowed ? decision.usage : undefined;
        const output = await tool.handler(input, usage ? { ...context, quotas: usage } : context);
        const checked = tool.outputSchema.safeParse(output.structuredContent);
        if (!checked.success) {
          logError("tool output failed its schema", {
            tool: tool.name,
            correlationId,
            issues: humaniseIssues(checked.error),
          });
          throw new Failure("internal", `${tool.name} failed: internal error.`).auditedAs(
            "output did not match the tool's outputSchema",
          );
        }
        // What the output schema declares, and only that: the listing advertises the schema (additionalProperties:
        // false), and clients such as SDK 1.x refuse a result that carries more.
        return { ...output, structuredContent: checked.data };
      },
    },
  );
  if (!outcome.ok) return failureAsToolResult(outcome.failure, correlationId);
  const structuredContent = outcome.value.structuredContent as Record<string, unknown>;
  return {
    content: [{ type: "text", text: outcome.value.text ?? JSON.stringify(structuredContent, null, 2) }],
    structuredContent,
    _meta: { correlationId, ...outcome.value.meta },
  };
}
