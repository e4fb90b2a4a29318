/** The order-data catalog of this deployment, loaded once per isolate from the bundled policy files. */
import { bundledPolicyFiles } from "../policy/files";
import { loadGraphqlCatalog, type GraphqlCatalog } from "./operation-allowlist";

let cached: GraphqlCatalog | undefined;

export function getGraphqlCatalog(): GraphqlCatalog {
  cached ??= loadGraphqlCatalog(bundledPolicyFiles);
  return cached;
}
