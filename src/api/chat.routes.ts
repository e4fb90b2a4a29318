/**
 * POST /chat (served as /api/chat): the demo of the original example. Understands "paid orders" / "pedidos
 * pagos" (any status word from policy) and an order id, calls the SAME order tools through the SAME
 * governed core (src/core/governed.ts) as MCP clients, without the MCP front (scopes, rate limits, audit, masking
 * all apply), and summarises the result as
 * chat messages; otherwise answers with examples of what to ask. One request leaves one audit record with one
 * correlation id (the body's, the X-Correlation-Id header's): the tool call's when it made one, else the route's.
 */
import { auditSinkFor } from "../audit/sink";
import { Failure } from "../core/failure";
import { failureAsToolResult } from "../core/failure-mapping";
import { governedToolCall } from "../core/tool-call";
import { telemetryFor } from "../telemetry";
import { organizationMasking, organizationUpstream } from "../graphql/organization-upstream";
import type { Principal } from "../core/principal";
import type { Env } from "../env";
import { getGraphqlCatalog } from "../graphql/bundled";
import { enabledOperations, type GraphqlOperation } from "../graphql/operation-allowlist";
import { isPortuguese, understand } from "../graphql/chat-intent";
import { summariseOrder, summariseSearch } from "../graphql/chat-summary";
import { runGovernedOperation } from "../graphql/run-operation";
import { rateLimiterFor } from "../ratelimit/limiter";
import { readBodyLimited } from "../lib/body";
import { bodyTruncated, tooLarge } from "./contracts-http";
import type { ApiRoute } from "./router";

const MAX_BODY_BYTES = 8 * 1024;
const MAX_TEXT = 2000;
const SEARCH_TOOL = "orders_search";
const ORDER_TOOL = "orders_get_by_id";

interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** What a tool call answers the chat: the tool's structured result and whether it came from demo data, or the failure's text. */
type ToolAnswer =
  | { ok: true; structuredContent: Record<string, unknown>; demoData: boolean }
  | { ok: false; text: string };

/**
 * Runs an order tool through the core's tool call (src/core/tool-call.ts), as an MCP tools/call does: the tool's name
 * as the audit target and quota, its scopes, its input schema, then the allowlisted operation and the tool's output
 * schema; traced as the tool's own span under the route's. Its audit record, under this request's correlation id,
 * stands for the request.
 */
async function callOrderTool(
  operation: GraphqlOperation,
  args: Record<string, unknown>,
  call: { principal: Principal; env: Env; correlationId: string; signal: AbortSignal },
): Promise<ToolAnswer> {
  const tool = {
    name: operation.tool,
    requiredScopes: operation.scopes,
    inputSchema: operation.inputSchema,
    outputSchema: operation.outputSchema,
  };
  const deps = {
    audit: auditSinkFor(call.env),
    rateLimiter: rateLimiterFor(call.env),
    telemetry: telemetryFor(call.env),
  };
  const outcome = await governedToolCall(
    tool,
    args,
    { principal: call.principal, correlationId: call.correlationId, deps },
    async (input) => {
      // The gateway's handled failures are Failures (safe message, audit outcome), as for the MCP tool.
      const result = await runGovernedOperation(getGraphqlCatalog(), operation, input as Record<string, unknown>, {
        principal: call.principal,
        env: call.env,
        signal: call.signal,
        upstream: await organizationUpstream(call.env, call.principal.organizationId),
        extraMasking: await organizationMasking(call.env, call.principal.organizationId),
      });
      return { structuredContent: result.structuredContent, demoData: result.meta.demoData };
    },
  );
  if (!outcome.ok)
    return { ok: false, text: failureAsToolResult(outcome.failure, call.correlationId).content[0]!.text };
  return { ok: true, ...outcome.value };
}

async function readText(request: Request): Promise<string> {
  const invalid = (message: string) =>
    new Failure("invalid_input", `${message} Send JSON such as {"text": "paid orders"}.`, {}, "invalid_request");
  if (!(request.headers.get("content-type") ?? "").toLowerCase().includes("application/json"))
    throw invalid("The body must be JSON (Content-Type: application/json).");
  // Read with the limit applied while reading, and a body that breaks off answered as such (not thrown as a 500).
  const read = await readBodyLimited(request, MAX_BODY_BYTES);
  if (!read.ok) {
    if (read.reason === "too_large") throw tooLarge(MAX_BODY_BYTES);
    if (read.reason === "truncated") throw bodyTruncated(read);
    if (read.reason === "length_mismatch")
      throw new Failure("invalid_input", "The request body is longer than its Content-Length.", {}, "invalid_body");
  }
  let body: unknown;
  try {
    body = JSON.parse(read.ok ? new TextDecoder().decode(read.bytes) : "");
  } catch {
    throw invalid("The body is not valid JSON.");
  }
  const text = body && typeof body === "object" && !Array.isArray(body) ? (body as { text?: unknown }).text : undefined;
  if (typeof text !== "string" || text.trim() === "") throw invalid('"text" must be a non-empty string.');
  if (text.length > MAX_TEXT) throw invalid(`"text" must be at most ${MAX_TEXT} characters.`);
  return text;
}

function helpText(pt: boolean): string {
  return pt
    ? 'Posso consultar pedidos pelas ferramentas governadas. Exemplos: "me traga pedidos pagos", "pedidos pendentes" ou "detalhe o pedido ord_1002".'
    : 'I can look up orders through the governed tools. Examples: "show me paid orders", "pending orders" or "details of order ord_1002".';
}

export const chatRoutes: ApiRoute[] = [
  {
    method: "POST",
    path: "/api/chat",
    // Each tool checks its own scope in the pipeline; a refusal is answered as a chat message.
    requiredScopes: [],
    async handle({ request, env, principal, correlationId, delegateAudit }) {
      const text = await readText(request);
      const pt = isPortuguese(text);
      const messages: ChatMessage[] = [
        { role: "system", content: "Use only allowlisted tools. Do not return personal data. Answer objectively." },
        { role: "user", content: text },
      ];
      const intent = understand(text, getGraphqlCatalog().normalisers.get("OrderStatus"));
      if (intent.kind === "help") {
        messages.push({ role: "assistant", content: helpText(pt) });
        return Response.json({ correlationId, messages }, { headers: { "Cache-Control": "no-store" } });
      }

      const toolName = intent.kind === "search" ? SEARCH_TOOL : ORDER_TOOL;
      const operation = enabledOperations(getGraphqlCatalog()).find((candidate) => candidate.tool === toolName);
      if (!operation)
        throw new Failure("unavailable", `The ${toolName} tool is not enabled on this server.`, {}, "tool_unavailable");
      const args = intent.kind === "search" ? { status: intent.status } : { id: intent.id };
      messages.push({
        role: "assistant",
        content:
          intent.kind === "search"
            ? pt
              ? `Consultando pedidos com status ${intent.status} via tool ${toolName}...`
              : `Searching orders with status ${intent.status} via tool ${toolName}...`
            : pt
              ? `Consultando o pedido ${intent.id} via tool ${toolName}...`
              : `Looking up order ${intent.id} via tool ${toolName}...`,
      });

      // One request, one record: the tool call's, under this request's correlation id (X-Correlation-Id).
      delegateAudit();
      const result = await callOrderTool(operation, args, { principal, env, correlationId, signal: request.signal });
      if (!result.ok) {
        messages.push({ role: "assistant", content: result.text });
      } else {
        messages.push({
          role: "assistant",
          content:
            intent.kind === "search"
              ? summariseSearch(result.structuredContent, intent.status, pt, result.demoData)
              : summariseOrder(result.structuredContent, intent.id, pt, result.demoData),
        });
      }
      return Response.json({ correlationId, messages }, { headers: { "Cache-Control": "no-store" } });
    },
  },
];
