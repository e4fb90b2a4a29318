// Scopes: what the CLI asks for, and the exact login to run when a token lacks one. Imports nothing, so the
// request code and the credential code can both use it.

/** What this CLI's own commands need, per credential slot (see RESOURCE_PATH in credentials.mjs). */
export const CLI_SCOPES = Object.freeze({
  api: ["contracts.read", "contracts.write", "snapshots.write"],
  chat: ["orders.read", "orders.search"],
  mcp: [],
});
// Arbiter issues a refresh token only when the grant includes offline_access.
export const OFFLINE_ACCESS = "offline_access";

export const loginHint = (origin, resourceName, scopes) =>
  `"arbiter login --server ${origin}${resourceName === "api" ? "" : ` --resource ${resourceName}`}${scopes ? ` --scopes '${scopes.join(" ")}'` : ""}"`;

/**
 * What to do when the login token lacks scopes a command needs: the exact login that asks for them too (the
 * scopes it already has, plus the missing ones), and where people miss them (the consent page leaves sensitive
 * scopes unticked until you tick them).
 */
export function missingScopeAdvice(origin, what, missing, granted) {
  const wanted = [...new Set([...granted.filter((s) => s !== OFFLINE_ACCESS), ...missing])];
  return `${what} needs the scope${missing.length === 1 ? "" : "s"} ${missing.join(" ")}, which your login token for ${origin} does not carry. Run ${loginHint(origin, "api", wanted)} and tick ${missing.length === 1 ? "it" : "them"} on the consent page.`;
}
