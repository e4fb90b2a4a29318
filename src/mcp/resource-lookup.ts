/**
 * Which catalog entry a resource URI names: a listed resource (exact URI) or the first resource template it
 * matches, in registration order. resources/read, resources/subscribe and resources/unsubscribe all resolve a
 * URI here, so they agree on what exists. A URI longer than MAX_RESOURCE_URI_LENGTH names nothing: no resource
 * of this server is that long, and refusing it early keeps oversized strings out of matching and storage.
 */
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import type { Catalog } from "./catalog";
import type { ResourceDefinition, ResourceTemplateDefinition } from "./context";

export const MAX_RESOURCE_URI_LENGTH = 2048;

/** JSON-RPC error of the MCP 2025-11-25 specification (server/resources, "Error Handling"): resource not found. */
export const RESOURCE_NOT_FOUND = -32002;

export type ResourceTarget =
  | { kind: "resource"; resource: ResourceDefinition; name: string; requiredScopes: readonly string[]; label: string }
  | {
      kind: "template";
      template: ResourceTemplateDefinition;
      variables: Record<string, string>;
      name: string;
      requiredScopes: readonly string[];
      label: string;
    };

export type ResourceLookup = { found: ResourceTarget } | { tooLong: number } | { unknown: true };

const lookups = new WeakMap<Catalog, (uri: string) => ResourceLookup>();

/**
 * The lookup for `catalog`, made once per catalog and shared by everything that resolves a URI (both lanes, the
 * step-up front, subscriptions/listen): the stateless lane builds a server per request.
 */
export function resourceLookup(catalog: Catalog): (uri: string) => ResourceLookup {
  let lookup = lookups.get(catalog);
  if (!lookup) {
    lookup = compiledLookup(catalog);
    lookups.set(catalog, lookup);
  }
  return lookup;
}

/** The lookup for `catalog`, its templates compiled. */
function compiledLookup(catalog: Catalog): (uri: string) => ResourceLookup {
  const templates = [...catalog.resourceTemplates.values()].map((template) => ({
    template,
    matcher: new UriTemplate(template.uriTemplate),
  }));
  return (uri) => {
    if (uri.length > MAX_RESOURCE_URI_LENGTH) return { tooLong: uri.length };
    const resource = catalog.resources.get(uri);
    if (resource)
      return {
        found: {
          kind: "resource",
          resource,
          name: resource.name,
          requiredScopes: resource.requiredScopes,
          label: resource.uri,
        },
      };
    for (const { template, matcher } of templates) {
      const variables = matcher.match(uri);
      if (!variables) continue;
      const flat = Object.fromEntries(
        Object.entries(variables).map(([key, value]) => [key, Array.isArray(value) ? value.join(",") : String(value)]),
      );
      return {
        found: {
          kind: "template",
          template,
          variables: flat,
          name: template.name,
          requiredScopes: template.requiredScopes,
          label: template.uriTemplate,
        },
      };
    }
    return { unknown: true };
  };
}
