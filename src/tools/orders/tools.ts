/**
 * Order tools, derived from the allowlisted GraphQL operations (policies/graphql/operations): one tool per
 * enabled operation, with the operation's scopes, annotations and derived input/output schemas. Adding an
 * operation file and its policy adds a tool; nothing here names a particular operation.
 */
import type { CapabilityContext, Registrar } from "../../mcp/context";
import { getGraphqlCatalog } from "../../graphql/bundled";
import { enabledOperations, type GraphqlCatalog } from "../../graphql/operation-allowlist";
import { runGovernedOperation, type GovernedOptions } from "../../graphql/run-operation";
import { organizationMasking, organizationUpstream } from "../../graphql/organization-upstream";

/** A registrar for the tools of `catalog`; `options` lets tests inject a fetcher or a cache. */
export function orderToolRegistrar(catalog: GraphqlCatalog, options: GovernedOptions = {}): Registrar {
  return (ctx) => {
    for (const operation of enabledOperations(catalog)) {
      ctx.registerTool({
        name: operation.tool,
        title: operation.title,
        description: operation.description,
        inputSchema: operation.inputSchema,
        outputSchema: operation.outputSchema,
        annotations: operation.annotations,
        requiredScopes: operation.scopes,
        async handler(input, call) {
          // The gateway's handled failures are Failures (safe message, audit outcome): the core maps them as they are.
          const result = await runGovernedOperation(
            catalog,
            operation,
            input as Record<string, unknown>,
            {
              ...call,
              upstream: await organizationUpstream(call.env, call.principal.organizationId),
              extraMasking: await organizationMasking(call.env, call.principal.organizationId),
            },
            options,
          );
          return { structuredContent: result.structuredContent, meta: { ...result.meta, operation: operation.name } };
        },
      });
    }
  };
}

export function registerOrderTools(ctx: CapabilityContext): void {
  orderToolRegistrar(getGraphqlCatalog())(ctx);
}
