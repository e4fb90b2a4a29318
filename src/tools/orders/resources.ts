/**
 * Read-only context for agents using the order tools: the allowed schema subset, the access policy as
 * enforced, and example outputs on demo data. All three are generated from the loaded policy.
 */
import { resolveOrganization } from "../../directory/client";
import { organizationMasking, organizationUpstream } from "../../graphql/organization-upstream";
import { accessPolicyDocument } from "../../graphql/access-policy";
import { getGraphqlCatalog } from "../../graphql/bundled";
import type { GraphqlCatalog } from "../../graphql/operation-allowlist";
import { ordersExamplesDocument } from "../../graphql/examples";
import type { CapabilityContext, Registrar } from "../../mcp/context";

export function orderResourceRegistrar(catalog: GraphqlCatalog): Registrar {
  return (ctx) => {
    ctx.registerResource({
      name: "graphql_schema",
      uri: "graphql://schema",
      title: "Orders GraphQL schema (allowed subset)",
      description:
        "SDL of only the types, fields and arguments the allowlisted order operations use. No other part of the upstream schema is reachable.",
      mimeType: "application/graphql",
      requiredScopes: [],
      async read() {
        return { text: catalog.subsetSdl, mimeType: "application/graphql" };
      },
    });
    ctx.registerResource({
      name: "access_policy",
      uri: "policies://access",
      title: "Order data access policy",
      description:
        "What this server enforces for order data, for your organization and token: scopes per tool, quotas, timeouts, masked fields, limits and the audit record's fields. Generated from the loaded policy.",
      mimeType: "application/json",
      requiredScopes: [],
      async read({ principal, env }) {
        return {
          text: JSON.stringify(
            accessPolicyDocument(catalog, principal, env, {
              upstream: await organizationUpstream(env, principal.organizationId),
              quotas: (await resolveOrganization(env, principal.organizationId))?.record.settings.quotas,
              extraMasking: await organizationMasking(env, principal.organizationId),
            }),
            null,
            2,
          ),
          mimeType: "application/json",
        };
      },
    });
    ctx.registerResource({
      name: "order_examples",
      uri: "examples://orders",
      title: "Order tool examples (demo data)",
      description:
        "Example outputs of the order tools, produced by running them against the embedded demo upstream (demo data), masked for your token and your organization's data policy.",
      mimeType: "application/json",
      requiredScopes: [],
      async read({ principal, env, signal }) {
        return {
          text: JSON.stringify(
            await ordersExamplesDocument(catalog, {
              principal,
              env,
              signal,
              extraMasking: await organizationMasking(env, principal.organizationId),
            }),
            null,
            2,
          ),
          mimeType: "application/json",
        };
      },
    });
  };
}

export function registerOrderResources(ctx: CapabilityContext): void {
  orderResourceRegistrar(getGraphqlCatalog())(ctx);
}
