import { Failure, kindForOutcome } from "../core/failure";
import type { GatewayOutcome } from "./types";

/**
 * A handled failure of an upstream call, as the governed core's Failure (its kind follows `outcome`), so every
 * surface that runs an order operation (both MCP lanes, /chat) answers and audits it like any other failure without
 * translating it. The message is safe to show (no upstream internals); `details` reach the client.
 * `operatorDetail` is each upstream error's class and path (`FORBIDDEN at orderById`), never its text: only the
 * gateway's log line holds it, and it is never part of an answer.
 */
export class GatewayFailure extends Failure {
  override readonly name = "GatewayFailure";
  constructor(
    outcome: GatewayOutcome,
    message: string,
    meta: Record<string, unknown> = {},
    readonly operatorDetail: readonly string[] = [],
  ) {
    super(kindForOutcome(outcome), message, meta);
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
