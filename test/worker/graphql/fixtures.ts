/** Policy maps for loader tests: the bundled files with some files added, replaced or removed. */
import { bundledPolicyFiles, type PolicyFiles } from "../../../src/policy/files";

export function policyFilesWith(changes: Record<string, unknown>): PolicyFiles {
  const files: Record<string, unknown> = { ...bundledPolicyFiles };
  for (const [path, value] of Object.entries(changes)) {
    if (value === undefined) delete files[path];
    else files[path] = value;
  }
  return files;
}

export const OPS = "graphql/operations/";

/** A third operation, written only as policy files: multi-status search with a total filter and the customer. */
export const FIND_ORDERS_OPERATION = `"Finds orders in any of several statuses above a minimum total, with the customer's id and e-mail."
query FindOrders(
  "Orders in any of these statuses."
  $statuses: [OrderStatus!]!
  $minTotal: Float
  $limit: Int = 10
) {
  orders(filter: { statuses: $statuses, minTotal: $minTotal }, limit: $limit) {
    id
    total
    status
    customer {
      id
      email
    }
  }
}
`;

export const FIND_ORDERS_POLICY = {
  tool: "orders_find",
  title: "Find orders by statuses and total",
  scopes: ["orders.search"],
  timeoutMs: 1500,
};
