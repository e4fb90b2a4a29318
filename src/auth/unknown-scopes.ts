/**
 * Scopes an authorization request names that the scope catalogue (policies/scopes.json) does not define.
 * Such a request goes back to the client with `invalid_scope` (RFC 6749 §4.1.2.1) instead of being shown
 * as "your role cannot grant" and approved as nothing: a typo in a client's configuration should fail loudly.
 */

/** How many unknown names the description lists, and how much of each: the client sent them, so bound them. */
const MAX_LISTED = 5;
const MAX_NAME_LENGTH = 64;

/** The requested scopes that are not in the catalogue, in request order, without repeats. */
export function unknownScopes(requested: readonly string[], known: readonly string[]): string[] {
  const catalogue = new Set(known);
  return [...new Set(requested.filter((scope) => !catalogue.has(scope)))];
}

/**
 * The `error_description` for an `invalid_scope` redirect. RFC 6749 allows only %x20-21 / %x23-5B / %x5D-7E
 * there; scope tokens use the same set minus the space, so each name keeps only those characters and is cut.
 */
export function invalidScopeDescription(unknown: readonly string[]): string {
  const shown = unknown.slice(0, MAX_LISTED).map((scope) => {
    const clean = scope.replace(/[^\x21\x23-\x5B\x5D-\x7E]/g, "");
    const cut = clean.length > MAX_NAME_LENGTH ? `${clean.slice(0, MAX_NAME_LENGTH)}...` : clean;
    return cut || "(unprintable)";
  });
  const more = unknown.length > MAX_LISTED ? ` and ${unknown.length - MAX_LISTED} more` : "";
  const noun = unknown.length === 1 ? "scope" : "scopes";
  return `Unknown ${noun}: ${shown.join(", ")}${more}. Request only scopes listed in scopes_supported of the authorization server metadata.`;
}
