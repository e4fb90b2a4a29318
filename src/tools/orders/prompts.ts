/** The ask_orders prompt: a question answered with the order tools only, never other sources or personal data. */
import { z } from "zod";
import { getGraphqlCatalog } from "../../graphql/bundled";
import { enabledOperations, type GraphqlCatalog } from "../../graphql/operation-allowlist";
import type { CapabilityContext, Registrar } from "../../mcp/context";

const questionField = z
  .string()
  .min(1)
  .max(2000)
  .describe('The user\'s question about orders, e.g. "Which orders are paid?" or "What is in order ord_1002?"');

export function askOrdersInstructions(catalog: GraphqlCatalog, question: string): string {
  const tools = enabledOperations(catalog)
    .filter((operation) => operation.kind === "query")
    .map((operation) => `- ${operation.tool}: ${operation.title}`);
  const masked = Object.entries(catalog.dataPolicy.sensitiveFields).map(
    ([field, rule]) => `${field} (shown as "${catalog.dataPolicy.mask}" unless the token holds ${rule.unmaskScope})`,
  );
  return [
    "Answer the question below about the organization's orders.",
    "Use only these tools of this server:",
    ...tools,
    "Do not use any other tool, source, web search or prior knowledge for order facts; if the tools cannot answer, say so.",
    "Do not ask the user for sensitive or personal data (customer names, e-mails, payment or contact details), and do not try to uncover masked values.",
    `Masked fields: ${masked.join("; ") || "none"}. Report a masked value as masked.`,
    "If a tool refuses (missing scope, rate limit, timeout, invalid input), tell the user what it said and what would fix it.",
    "",
    `Question: ${question}`,
  ].join("\n");
}

export function orderPromptRegistrar(catalog: GraphqlCatalog): Registrar {
  return (ctx) => {
    ctx.registerPrompt({
      name: "ask_orders",
      title: "Ask about orders",
      description: `Answers a question about orders using only the governed order tools (${enabledOperations(catalog)
        .filter((operation) => operation.kind === "query")
        .map((operation) => operation.tool)
        .join(", ")}), without other sources or sensitive data.`,
      argsSchema: z.object({ question: questionField }),
      requiredScopes: [],
      async build({ question }) {
        return [{ role: "user", text: askOrdersInstructions(catalog, question) }];
      },
    });
  };
}

export function registerOrderPrompts(ctx: CapabilityContext): void {
  orderPromptRegistrar(getGraphqlCatalog())(ctx);
}
