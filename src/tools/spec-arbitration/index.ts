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
import { APP_MIME_TYPE, VERDICT_VIEW_RESOURCE_META, VERDICT_VIEW_URI, verdictViewContents } from "./verdict-view";

export function registerContractTools(ctx: CapabilityContext): void {
  registerSpecProjectTools(ctx);
  registerConformanceTool(ctx);
  registerDraftTools(ctx);
  registerPayloadTool(ctx);
  registerExchangeTools(ctx);
  registerAcceptanceTools(ctx);
  ctx.registerResource({
    name: "verdict_view",
    uri: VERDICT_VIEW_URI,
    title: "Verdict view (MCP App)",
    description:
      "The interactive view hosts that render MCP Apps show for check_api_conformance, check_api_draft and compare_contract_versions: the verdict at a glance, findings by operation and rule with their usage and accepted breaks, and a link to the console.",
    mimeType: APP_MIME_TYPE,
    requiredScopes: ["contracts.read"],
    listingMeta: VERDICT_VIEW_RESOURCE_META,
    read: async () => verdictViewContents(),
  });
  registerSpecResources(ctx);
  registerSpecPrompts(ctx);
}
