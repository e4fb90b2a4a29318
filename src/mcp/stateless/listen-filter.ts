/**
 * A subscriptions/listen request as the governed core sees it: each URI in `resourceSubscriptions` must be a
 * resource of the catalog (or match one of its templates), and the stream needs every scope a resources/read of
 * those URIs would (the SDK itself accepts any URI). The operation built here is the one the HTTP step-up answer
 * (front/step-up.ts) and the ListenHub both govern, so a refusal before the hub and one inside it leave the same record.
 */
import { UriTemplate } from "@modelcontextprotocol/server";
import { Failure } from "../../core/failure";
import type { GovernedOperation } from "../../core/governed";
import type { Catalog } from "../catalog";
import type { CallContext } from "../context";
import { resolvedTarget, SUBSCRIPTIONS_RATE_LIMIT_TARGET } from "../governed-capabilities";
import { MAX_RESOURCE_URI_LENGTH, resourceLookup } from "../resource-lookup";

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

function urisOf(params: unknown): unknown {
  return (params as { notifications?: { resourceSubscriptions?: unknown } } | null)?.notifications
    ?.resourceSubscriptions;
}

/**
 * The rules resources/subscribe applies, for each URI of a listen request whose filter listenOperation accepted:
 * the URI resolves as resources/subscribe resolves it (resource-lookup.ts) and its template's `follow` hook
 * accepts it (a project of the caller's organization, a version or snapshot that exists). Throws the Failure.
 */
export async function checkListenUris(catalog: Catalog, params: unknown, context: CallContext): Promise<void> {
  const uris = urisOf(params);
  if (!Array.isArray(uris)) return;
  const lookup = resourceLookup(catalog);
  for (const uri of uris as string[]) {
    const target = resolvedTarget(lookup(uri), uri);
    if (target instanceof Failure) throw target;
    if (target.kind === "template") await target.template.follow?.(uri, target.variables, context);
  }
}

/** The governed operation of a listen request with these `params`, or the Failure that says what is wrong with them. */
export function listenOperation(catalog: Catalog, params: unknown): GovernedOperation | Failure {
  const uris = urisOf(params);
  const required = new Set<string>();
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === "string"))
      return new Failure("invalid_input", "notifications.resourceSubscriptions must be an array of resource URIs.");
    if (uris.length > MAX_LISTEN_URIS)
      return new Failure(
        "invalid_input",
        `A listen stream follows at most ${MAX_LISTEN_URIS} resources; this one asks for ${uris.length}.`,
        { limit: MAX_LISTEN_URIS },
      );
    for (const uri of uris) {
      if (uri.length > MAX_RESOURCE_URI_LENGTH)
        return new Failure(
          "invalid_input",
          `The resource URI is ${uri.length} characters long; this server's resource URIs are at most ${MAX_RESOURCE_URI_LENGTH}. resources/list and resources/templates/list show them.`,
        );
      const scopes = requiredScopesOf(catalog, uri);
      if (!scopes)
        return new Failure(
          "invalid_input",
          `There is no resource ${uri.slice(0, 200)} on this server: resources/list and resources/templates/list show what can be followed.`,
          {},
          "unknown_resource",
        );
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
