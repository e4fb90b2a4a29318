/**
 * What a subscriptions/listen request may ask for: each URI in `resourceSubscriptions` must be a resource of the
 * catalog (or match one of its templates) whose scopes the caller holds, like a resources/read of it. The SDK
 * itself accepts any URI; refusing here keeps a listener from following what it could not read.
 */
import { UriTemplate } from "@modelcontextprotocol/server";
import { missingScopes, type Catalog } from "../catalog";
import type { Principal } from "../context";

/** Bounds the filter a listen stream may carry. */
export const MAX_LISTEN_URIS = 50;

function requiredScopesOf(catalog: Catalog, uri: string): readonly string[] | undefined {
  const resource = catalog.resources.get(uri);
  if (resource) return resource.requiredScopes;
  for (const template of catalog.resourceTemplates.values()) {
    if (new UriTemplate(template.uriTemplate).match(uri)) return template.requiredScopes;
  }
  return undefined;
}

/** Why `params` (of a subscriptions/listen request) is refused for `principal`, or undefined when it is fine. */
export function listenRefusal(catalog: Catalog, principal: Principal, params: unknown): string | undefined {
  const uris = (params as { notifications?: { resourceSubscriptions?: unknown } } | null)?.notifications?.resourceSubscriptions;
  if (uris === undefined) return undefined;
  if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === "string")) return "notifications.resourceSubscriptions must be an array of resource URIs.";
  if (uris.length > MAX_LISTEN_URIS) return `A listen stream follows at most ${MAX_LISTEN_URIS} resources; this one asks for ${uris.length}.`;
  for (const uri of uris) {
    const required = requiredScopesOf(catalog, uri);
    if (!required) return `There is no resource ${uri.slice(0, 200)} on this server: resources/list and resources/templates/list show what can be followed.`;
    const missing = missingScopes(principal.scopes, required);
    if (missing.length > 0) return `Insufficient scope: following ${uri.slice(0, 200)} needs ${missing.join(", ")}. Reconnect and grant it on the consent page.`;
  }
  return undefined;
}
