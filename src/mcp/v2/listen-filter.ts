/**
 * A subscriptions/listen request as the governed core sees it: each URI in `resourceSubscriptions` must be a
 * resource of the catalog (or match one of its templates), and the stream needs every scope a resources/read of
 * those URIs would (the SDK itself accepts any URI). The operation built here is the one the HTTP step-up answer
 * (step-up.ts) and the ListenHub both govern, so a refusal before the hub and one inside it leave the same record.
 */
import { UriTemplate } from "@modelcontextprotocol/server";
import { Failure } from "../../core/failure";
import type { GovernedOperation } from "../../core/governed";
import type { Catalog } from "../catalog";
import { SUBSCRIPTIONS_RATE_LIMIT_TARGET } from "../governed-capabilities";

/** Bounds the filter a listen stream may carry. */
export const MAX_LISTEN_URIS = 50;

export const LISTEN_TARGET = "subscriptions/listen";

function requiredScopesOf(catalog: Catalog, uri: string): readonly string[] | undefined {
  const resource = catalog.resources.get(uri);
  if (resource) return resource.requiredScopes;
  for (const template of catalog.resourceTemplates.values()) {
    if (new UriTemplate(template.uriTemplate).match(uri)) return template.requiredScopes;
  }
  return undefined;
}

/** The governed operation of a listen request with these `params`, or the Failure that says what is wrong with them. */
export function listenOperation(catalog: Catalog, params: unknown): GovernedOperation | Failure {
  const uris = (params as { notifications?: { resourceSubscriptions?: unknown } } | null)?.notifications?.resourceSubscriptions;
  const required = new Set<string>();
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === "string")) return new Failure("invalid_input", "notifications.resourceSubscriptions must be an array of resource URIs.");
    if (uris.length > MAX_LISTEN_URIS) return new Failure("invalid_input", `A listen stream follows at most ${MAX_LISTEN_URIS} resources; this one asks for ${uris.length}.`, { limit: MAX_LISTEN_URIS });
    for (const uri of uris) {
      const scopes = requiredScopesOf(catalog, uri);
      if (!scopes) return new Failure("invalid_input", `There is no resource ${uri.slice(0, 200)} on this server: resources/list and resources/templates/list show what can be followed.`, {}, "unknown_resource");
      for (const scope of scopes) required.add(scope);
    }
  }
  return {
    kind: "resource",
    target: LISTEN_TARGET,
    label: "following these resources",
    requiredScopes: [...required],
    rateLimit: { target: SUBSCRIPTIONS_RATE_LIMIT_TARGET, unit: "subscription changes" },
  };
}
