import { getPolicy } from "../policy/load";
import { registrars } from "../tools";
import { buildCatalog, type Catalog } from "./catalog";
import { toolListing } from "./catalog-view";

let cached: Catalog | undefined;
let prepared = false;

/** The catalog of this deployment, built once per isolate from the registrars in src/tools/index.ts. */
export function getCatalog(): Catalog {
  cached ??= buildCatalog(registrars, getPolicy().scopeNames);
  return cached;
}

/**
 * Builds the catalog and every tool's listing while the isolate starts (src/index.ts calls this from its module
 * scope), so that no request pays for them. Before, a new isolate's first MCP request built them (the GraphQL
 * operations parsed and validated, their schemas derived, every schema converted to JSON Schema): the largest part of
 * a new client's first answer that a bare MCP server does not have (docs/benchmarks.md, "2026-12-04 night"). On
 * Cloudflare an isolate is started while the connection's TLS handshake is still under way, so this work mostly
 * overlaps it; start-up has a CPU limit of its own, which `wrangler deploy` checks (docs/operations.md, "Start-up").
 *
 * A catalog that cannot be built is not raised here, where it would stop the Worker from starting at all (the
 * console, /health and the operator API included): getCatalog() raises the same error, with the file and rule it
 * names, to every request that needs the catalog, as it always did.
 */
export function prepareCatalog(): void {
  prepared = true;
  try {
    for (const tool of getCatalog().tools.values()) toolListing(tool);
  } catch {
    // Raised again, to each request that needs the catalog, by getCatalog().
  }
}

/** Whether this isolate prepared its catalog, and whether it has one (test/worker/mcp/catalog-at-start-up.test.ts). */
export function catalogState(): { prepared: boolean; built: boolean } {
  return { prepared, built: cached !== undefined };
}
