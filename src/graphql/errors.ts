/**
 * A policy file of the order-data layer that cannot be used. The message names the file (relative to the
 * repository), the line when there is one, and the rule that failed, so an operator can fix it without
 * reading code: `policies/graphql/operations/Deep.graphql:7: max-depth: ...`.
 */
export class GraphqlPolicyError extends Error {
  override readonly name = "GraphqlPolicyError";
  constructor(
    /** Path relative to policies/, e.g. `graphql/operations/SearchOrders.graphql`. */
    readonly file: string,
    readonly line: number | undefined,
    readonly rule: string,
    readonly problem: string,
  ) {
    super(`policies/${file}${line === undefined ? "" : `:${line}`}: ${rule}: ${problem}`);
  }
}
