/**
 * Spec arbitration over MCP, in this folder: the tools (*.tools.ts, split by concern, fields in fields.ts), the
 * spec:// resources (resources.ts, URIs in uris.ts) with their subscriptions (subscriptions.ts), and the
 * spec-driven work prompt (prompts.ts). The work itself is done by the transport-free services in
 * src/contracts/services/; everything registered here maps their SpecFailure to a tool failure (failures.ts).
 */
import type { CapabilityContext } from "../../mcp/context";
import { registerConformanceTool } from "./conformance.tools";
import { registerDraftTools } from "./drafts.tools";
import { registerExchangeTools } from "./exchanges.tools";
import { mappingSpecFailures } from "./failures";
import { registerPayloadTool } from "./payload.tools";
import { registerSpecPrompts } from "./prompts";
import { registerSpecProjectTools } from "./projects.tools";
import { registerSpecResources } from "./resources";

export function registerContractTools(capabilities: CapabilityContext): void {
  const ctx = mappingSpecFailures(capabilities);
  registerSpecProjectTools(ctx);
  registerConformanceTool(ctx);
  registerDraftTools(ctx);
  registerPayloadTool(ctx);
  registerExchangeTools(ctx);
  registerSpecResources(ctx);
  registerSpecPrompts(ctx);
}
