/**
 * The tool pipeline: the one place every tool call goes through, in this order:
 * scope check -> rate limit -> input validation -> handler -> (output check) -> audit -> error mapping.
 * Tools never see the raw request and cannot skip a step: the server hands every tools/call here.
 */
import type { z } from "zod";
import { auditRecordOf, newCorrelationId, type AuditOutcome, type AuditSink } from "../audit/record";
import type { RateLimiter } from "../ratelimit/hook";
import { missingScopes } from "./catalog";
import { ToolFailure, type CallContext, type ToolDefinition } from "./context";
import { humaniseIssues } from "../validation/humanise";
import { logError } from "../web/log";

export interface ToolCallResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta: Record<string, unknown>;
}

export interface PipelineDeps {
  audit: AuditSink;
  rateLimiter: RateLimiter;
}

/** Names the fields zod rejected in plain words, e.g. `status must be one of PAID, PENDING` (validation/humanise.ts). */
export function describeZodIssues(error: z.ZodError): string {
  return humaniseIssues(error);
}

function errorResult(message: string, meta: Record<string, unknown>): ToolCallResult {
  return { content: [{ type: "text", text: message }], isError: true, _meta: meta };
}

export async function runToolCall(
  tool: ToolDefinition,
  rawArguments: unknown,
  context: Omit<CallContext, "correlationId">,
  deps: PipelineDeps,
): Promise<ToolCallResult> {
  const correlationId = newCorrelationId();
  const started = Date.now();
  const { principal } = context;
  let outcome: AuditOutcome = "error";
  let reason = "";
  let result: ToolCallResult;
  const meta: Record<string, unknown> = { correlationId };

  try {
    const missing = missingScopes(principal.scopes, tool.requiredScopes);
    if (missing.length > 0) {
      outcome = "rejected-by-policy";
      reason = `missing scope ${missing.join(" ")}`;
      result = errorResult(
        `Insufficient scope: ${tool.name} needs the OAuth scope ${missing.map((s) => `"${s}"`).join(", ")}. ` +
          `Reconnect this client and grant ${missing.length > 1 ? "them" : "it"} on the consent page (correlation id ${correlationId}).`,
        { ...meta, requiredScopes: [...tool.requiredScopes], missingScopes: missing },
      );
      return result;
    }

    const decision = await deps.rateLimiter.check({
      organizationId: principal.organizationId,
      clientId: principal.clientId,
      target: tool.name,
    });
    if (!decision.allowed) {
      outcome = "rate-limited";
      const storeDown = decision.cause === "store-unavailable";
      reason = storeDown ? "rate-limit store unavailable (fail closed)" : `limit ${decision.limit}/${decision.windowSeconds}s`;
      const message = storeDown
        ? `${tool.name} is paused: the rate-limit counters cannot be read and policy refuses calls until they can.`
        : `Rate limit reached: ${tool.name} allows ${decision.limit} calls per ${decision.windowSeconds} s for this client.`;
      result = errorResult(`${message} Retry after ${decision.retryAfterSeconds} s (correlation id ${correlationId}).`, {
        ...meta,
        retryAfter: decision.retryAfterSeconds,
        limit: decision.limit,
        windowSeconds: decision.windowSeconds,
      });
      return result;
    }

    const parsed = tool.inputSchema.safeParse(rawArguments ?? {});
    if (!parsed.success) {
      outcome = "invalid-input";
      reason = describeZodIssues(parsed.error).slice(0, 200);
      result = errorResult(`Invalid arguments for ${tool.name}: ${describeZodIssues(parsed.error)}`, meta);
      return result;
    }

    // `quotas`: what the limiter reported with its decision for a tool with reportsQuotaOf (whoami; see deps.ts).
    const output = await tool.handler(parsed.data, { ...context, correlationId, ...(decision.usage ? { quotas: decision.usage } : {}) });
    const checked = tool.outputSchema.safeParse(output.structuredContent);
    if (!checked.success) {
      outcome = "error";
      reason = "output did not match the tool's outputSchema";
      logError("tool output failed its schema", { tool: tool.name, correlationId, issues: describeZodIssues(checked.error) });
      result = errorResult(`${tool.name} failed: internal error (correlation id ${correlationId}).`, meta);
      return result;
    }
    outcome = "ok";
    const structuredContent = output.structuredContent as Record<string, unknown>;
    result = {
      content: [{ type: "text", text: output.text ?? JSON.stringify(structuredContent, null, 2) }],
      structuredContent,
      _meta: { ...meta, ...output.meta },
    };
    return result;
  } catch (error) {
    if (error instanceof ToolFailure) {
      outcome = error.outcome;
      reason = error.message.slice(0, 200);
      result = errorResult(`${error.message} (correlation id ${correlationId})`, { ...meta, ...error.meta });
      return result;
    }
    outcome = "error";
    reason = "unexpected failure";
    logError("tool handler threw", { tool: tool.name, correlationId, error });
    result = errorResult(`${tool.name} failed: internal error (correlation id ${correlationId}). Try again; if it persists, give the correlation id to your administrator.`, meta);
    return result;
  } finally {
    await deps.audit
      .record(
        await auditRecordOf({
          correlationId,
          caller: principal,
          kind: "tool",
          target: tool.name,
          arguments: rawArguments,
          startedMs: started,
          outcome,
          reason,
        }),
      )
      .catch((error: unknown) => logError("audit sink failed", { correlationId, error }));
  }
}
