/**
 * resources/list, written once for both lanes: the catalog's fixed resources, then the concrete resources of each
 * template the caller holds the scopes of, RESOURCES_PER_TEMPLATE_PAGE of each template per page, with an opaque
 * `nextCursor` while any template has more. The first page is what the list answered before it had cursors, so a
 * client that does not follow cursors sees the same; one that does reaches every entry a template lists.
 */
import { base64url } from "jose";
import { Failure } from "../core/failure";
import type { Governed } from "../core/governed";
import { missingScopes } from "../core/principal";
import { logError } from "../lib/log";
import type { Catalog } from "./catalog";
import type { CallContext, ResourceTemplateDefinition } from "./context";

/** The entries of one template on one page, at least (a template may end a page on a whole group, e.g. a project). */
export const RESOURCES_PER_TEMPLATE_PAGE = 200;

/** The longest cursor this server writes is far below this: anything longer is not one of its cursors. */
const MAX_CURSOR_LENGTH = 4_096;

export interface ListedResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  _meta?: Record<string, unknown>;
}

/** Where each template with more to list goes on: its name and the `after` its next page starts from (null: the start). */
type Positions = Map<string, string | null>;

function invalidCursor(): Failure {
  return new Failure(
    "invalid_input",
    "Invalid cursor: pass the nextCursor of the previous resources/list answer unchanged, or no cursor for the first page.",
    {},
    "invalid_cursor",
  );
}

/** Cursors are base64url JSON (jose's, the one base64url of the codebase). */
function encodeCursor(positions: Map<string, string>): string {
  return base64url.encode(JSON.stringify({ after: Object.fromEntries(positions) }));
}

/** The positions a cursor names, each of a template that lists; a Failure for anything this server did not write. */
function decodeCursor(cursor: string, listing: ReadonlyMap<string, ResourceTemplateDefinition>): Positions | Failure {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) return invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(base64url.decode(cursor)));
  } catch {
    return invalidCursor();
  }
  const after = (parsed as { after?: unknown } | null)?.after;
  if (typeof after !== "object" || after === null || Array.isArray(after)) return invalidCursor();
  const positions: Positions = new Map();
  for (const [name, value] of Object.entries(after)) {
    if (!listing.has(name) || typeof value !== "string") return invalidCursor();
    positions.set(name, value);
  }
  return positions.size > 0 ? positions : invalidCursor();
}

/** The catalog's fixed resources, as listed. */
function fixedResources(catalog: Catalog): ListedResource[] {
  return [...catalog.resources.values()].map((resource) => ({
    uri: resource.uri,
    name: resource.name,
    title: resource.title,
    description: resource.description,
    mimeType: resource.mimeType,
    ...(resource.listingMeta ? { _meta: resource.listingMeta } : {}),
  }));
}

/**
 * One page of resources/list for the caller: the first (no cursor) with the fixed resources, or the one `cursor`
 * names; a cursor this server did not write is refused as invalid input (-32602), as the specification asks.
 */
export async function resourcesPage(
  catalog: Catalog,
  context: CallContext,
  cursor: string | undefined,
): Promise<Governed<{ resources: ListedResource[]; nextCursor?: string }>> {
  const listing = new Map<string, ResourceTemplateDefinition>();
  for (const template of catalog.resourceTemplates.values())
    if (template.list && missingScopes(context.principal.scopes, template.requiredScopes).length === 0)
      listing.set(template.name, template);
  const positions: Positions | Failure =
    cursor === undefined ? new Map([...listing.keys()].map((name) => [name, null])) : decodeCursor(cursor, listing);
  if (positions instanceof Failure) return { ok: false, failure: positions };

  const resources = cursor === undefined ? fixedResources(catalog) : [];
  const next = new Map<string, string>();
  try {
    for (const [name, after] of positions) {
      const template = listing.get(name) as ResourceTemplateDefinition;
      const page = await template.list?.(context, { after, limit: RESOURCES_PER_TEMPLATE_PAGE });
      if (!page) continue;
      resources.push(
        ...page.items.map((item) => ({
          title: template.title,
          description: template.description,
          ...item,
          mimeType: template.mimeType,
        })),
      );
      if (page.nextAfter !== null) next.set(name, page.nextAfter);
    }
  } catch (error) {
    if (error instanceof Failure) return { ok: false, failure: error };
    logError("resource listing failed", { correlationId: context.correlationId, error });
    return { ok: false, failure: new Failure("internal", "Listing the resources failed: internal error. Try again.") };
  }
  const value = { resources, ...(next.size > 0 ? { nextCursor: encodeCursor(next) } : {}) };
  return { ok: true, value, decision: undefined };
}
