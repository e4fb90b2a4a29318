/**
 * POST /chat (served as /api/chat): the demo of the original example. Understands "paid orders" / "pedidos
 * pagos" (any status word from policy) and an order id, calls the SAME order tools through the SAME
 * governed core as MCP clients (scopes, rate limits, audit, masking all apply), and summarises the result as
 * chat messages; otherwise answers with examples of what to ask. One request leaves one audit record with one
 * correlation id (the body's, the X-Correlation-Id header's): the tool call's when it made one, else the route's.
 */
import { getGraphqlCatalog } from "../graphql/bundled";
import { isPortuguese, understand } from "../graphql/chat-intent";
import { summariseOrder, summariseSearch } from "../graphql/chat-summary";
import type { CallContext, SessionState } from "../mcp/context";
import { pipelineDepsFor } from "../mcp/deps";
import { runToolCall, type ToolCallResult } from "../mcp/pipeline";
import { getCatalog } from "../mcp/registry";
import { readBodyLimited } from "../lib/body";
import { bodyTruncated, tooLarge } from "./contracts-http";
import { apiError } from "./errors";
import type { ApiRoute } from "./router";

const MAX_BODY_BYTES = 8 * 1024;
const MAX_TEXT = 2000;
const SEARCH_TOOL = "orders_search";
const ORDER_TOOL = "orders_get_by_id";

interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** REST calls have no MCP session: nothing is kept between them. */
const noSession: SessionState = {
  async get() {
    return undefined;
  },
  async put() {},
};

async function readText(request: Request): Promise<string | Response> {
  const invalid = (message: string) => apiError(400, "invalid_request", `${message} Send JSON such as {"text": "paid orders"}.`);
  if (!(request.headers.get("content-type") ?? "").toLowerCase().includes("application/json")) return invalid("The body must be JSON (Content-Type: application/json).");
  // Read with the limit applied while reading, and a body that breaks off answered as such (not thrown as a 500).
  const read = await readBodyLimited(request, MAX_BODY_BYTES);
  if (!read.ok) {
    if (read.reason === "too_large") return tooLarge(MAX_BODY_BYTES);
    if (read.reason === "truncated") return bodyTruncated(read);
    if (read.reason === "length_mismatch") return apiError(400, "invalid_body", "The request body is longer than its Content-Length.");
  }
  let body: unknown;
  try {
    body = JSON.parse(read.ok ? new TextDecoder().decode(read.bytes) : "");
  } catch {
    return invalid("The body is not valid JSON.");
  }
  const text = body && typeof body === "object" && !Array.isArray(body) ? (body as { text?: unknown }).text : undefined;
  if (typeof text !== "string" || text.trim() === "") return invalid('"text" must be a non-empty string.');
  if (text.length > MAX_TEXT) return invalid(`"text" must be at most ${MAX_TEXT} characters.`);
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
      if (text instanceof Response) return text;
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
      const tool = getCatalog().tools.get(toolName);
      if (!tool) return apiError(503, "tool_unavailable", `The ${toolName} tool is not enabled on this server.`);
      const args = intent.kind === "search" ? { status: intent.status } : { id: intent.id };
      messages.push({
        role: "assistant",
        content:
          intent.kind === "search"
            ? pt ? `Consultando pedidos com status ${intent.status} via tool ${toolName}...` : `Searching orders with status ${intent.status} via tool ${toolName}...`
            : pt ? `Consultando o pedido ${intent.id} via tool ${toolName}...` : `Looking up order ${intent.id} via tool ${toolName}...`,
      });

      // One request, one record: the tool call's, under this request's correlation id (X-Correlation-Id).
      const context: CallContext = { principal, correlationId, env, session: noSession, signal: request.signal, async progress() {} };
      delegateAudit();
      const result: ToolCallResult = await runToolCall(tool, args, context, pipelineDepsFor(env));
      if (result.isError || !result.structuredContent) {
        messages.push({ role: "assistant", content: result.content[0]?.text ?? "The tool failed." });
      } else {
        const demo = result._meta.demoData === true;
        messages.push({
          role: "assistant",
          content: intent.kind === "search" ? summariseSearch(result.structuredContent, intent.status, pt, demo) : summariseOrder(result.structuredContent, intent.id, pt, demo),
        });
      }
      return Response.json({ correlationId, messages }, { headers: { "Cache-Control": "no-store" } });
    },
  },
];
