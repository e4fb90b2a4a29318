import { getPolicy } from "../policy/load";
import { registrars } from "../tools";
import { buildCatalog, type Catalog } from "./catalog";

let cached: Catalog | undefined;

/** The catalog of this deployment, built once per isolate from the registrars in src/tools/index.ts. */
export function getCatalog(): Catalog {
  cached ??= buildCatalog(registrars, getPolicy().scopeNames);
  return cached;
}
