import type { GatewayOutcome } from "./types";

/**
 * A handled failure of an upstream call: the message is safe to show (no upstream internals), `outcome`
 * goes to the audit record. The tool layer rethrows it as ToolFailure (message and meta reach the client).
 * `operatorDetail` is each upstream error's class and path (`FORBIDDEN at orderById`), never its text: only the
 * gateway's log line holds it.
 */
export class GatewayFailure extends Error {
  override readonly name = "GatewayFailure";
  constructor(
    readonly outcome: GatewayOutcome,
    message: string,
    readonly meta: Record<string, unknown> = {},
    readonly operatorDetail: readonly string[] = [],
  ) {
    super(message);
  }
}

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
