/**
 * The MCP lanes' tool adapter: every tools/call of both eras runs through the core's tool call
 * (src/core/tool-call.ts, which /chat takes too): scope check -> rate limit -> input validation -> handler -> output
 * check -> audit, and a Failure is mapped to the tool result by src/core/failure-mapping.ts. Tools never see the raw
 * request and cannot skip a step: the servers hand every tools/call here.
 */
import { newCorrelationId } from "../core/correlation";
import { failureAsToolResult } from "../core/failure-mapping";
import type { GovernanceDeps } from "../core/governed";
import { governedToolCall } from "../core/tool-call";
import type { CallContext, ToolDefinition } from "./context";

export interface ToolCallResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta: Record<string, unknown>;
}

export type PipelineDeps = GovernanceDeps;

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
  const outcome = await governedToolCall(
    tool,
    rawArguments,
    { principal: context.principal, correlationId, deps },
    async (input, decision) => {
      // `quotas`: what the limiter reported with its decision for a tool with reportsQuotaOf (whoami; see deps.ts).
      const usage = decision?.allowed ? decision.usage : undefined;
      return tool.handler(input, usage ? { ...context, quotas: usage } : context);
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
