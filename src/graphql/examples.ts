/**
 * The examples://orders document: the example arguments from each enabled query's policy, run through the
 * real governed path against the embedded demo upstream (never the organization's real API), masked for the
 * reading principal and the organization's extra masked fields (its data policy). Mutations are not run.
 */
import { GatewayFailure } from "./errors";
import { enabledOperations, type GraphqlCatalog } from "./operation-allowlist";
import { runGovernedOperation, type GovernedCall } from "./run-operation";

export async function ordersExamplesDocument(catalog: GraphqlCatalog, call: GovernedCall) {
  const examples = [];
  for (const operation of enabledOperations(catalog)) {
    if (operation.kind !== "query") continue;
    for (const example of operation.policy.examples) {
      const parsed = operation.inputSchema.safeParse(example.arguments);
      if (!parsed.success) continue; // the loader refuses invalid examples; nothing to show
      try {
        const result = await runGovernedOperation(catalog, operation, parsed.data as Record<string, unknown>, call, {
          forceDemo: true,
          cache: null,
        });
        examples.push({
          tool: operation.tool,
          description: example.description,
          arguments: example.arguments,
          sentAsVariables: parsed.data,
          structuredContent: result.structuredContent,
          _meta: result.meta,
        });
      } catch (error) {
        if (!(error instanceof GatewayFailure)) throw error;
        examples.push({
          tool: operation.tool,
          description: example.description,
          arguments: example.arguments,
          isError: true,
          message: error.message,
        });
      }
    }
  }
  return {
    about:
      "Example tool outputs, produced by running the allowlisted operations against the embedded demo upstream: DEMO DATA, not your organization's orders. Masked according to your token's scopes, exactly as real results are.",
    organization: call.principal.organizationId,
    examples,
  };
}
