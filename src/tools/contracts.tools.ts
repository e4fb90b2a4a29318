/**
 * Spec arbitration over MCP: the tools (this file's registrar, split by concern into contracts-*.ts), the
 * spec:// resources with verdict subscriptions, and the spec-driven work prompt.
 */
import { registerSpecPrompts } from "../contracts/mcp/prompt";
import { registerSpecResources } from "../contracts/mcp/resources";
import type { CapabilityContext } from "../mcp/context";
import { registerConformanceTool } from "./contracts-conformance";
import { registerDraftTools } from "./contracts-drafts";
import { registerExchangeTools } from "./contracts-exchanges";
import { registerPayloadTool } from "./contracts-payload";
import { registerSpecProjectTools } from "./contracts-projects";

export function registerContractTools(ctx: CapabilityContext): void {
  registerSpecProjectTools(ctx);
  registerConformanceTool(ctx);
  registerDraftTools(ctx);
  registerPayloadTool(ctx);
  registerExchangeTools(ctx);
  registerSpecResources(ctx);
  registerSpecPrompts(ctx);
}
