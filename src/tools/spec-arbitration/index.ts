/**
 * Spec arbitration over MCP, in this folder: the tools (*.tools.ts, split by concern, fields in fields.ts), the
 * spec:// resources (resources.ts, URIs in uris.ts) with their subscriptions (subscriptions.ts), and the
 * spec-driven work prompt (prompts.ts). The work itself is done by the transport-free services in
 * src/contracts/services/. Their SpecFailure is the governed core's Failure, so the core maps it to a tool result or
 * a JSON-RPC error like any other (src/core/failure-mapping.ts).
 */
import type { CapabilityContext } from "../../mcp/context";
import { registerAcceptanceTools } from "./acceptances.tools";
import { registerConformanceTool } from "./conformance.tools";
import { registerDraftTools } from "./drafts.tools";
import { registerExchangeTools } from "./exchanges.tools";
import { registerPayloadTool } from "./payload.tools";
import { registerSpecPrompts } from "./prompts";
import { registerSpecProjectTools } from "./projects.tools";
import { registerSpecResources } from "./resources";

export function registerContractTools(ctx: CapabilityContext): void {
  registerSpecProjectTools(ctx);
  registerConformanceTool(ctx);
  registerDraftTools(ctx);
  registerPayloadTool(ctx);
  registerExchangeTools(ctx);
  registerAcceptanceTools(ctx);
  registerSpecResources(ctx);
  registerSpecPrompts(ctx);
}
