/**
 * The one failure type of the contract services (project access, conformance check, payload validation): "cannot
 * verify" cases whose message says what to do next. Transport-free on purpose: the MCP surface maps it to a
 * tool result or JSON-RPC error through the core's failure mapping (src/core/failure-mapping.ts). `code` names
 * the case for clients (an MCP result's `_meta.cannotVerify`); `details` are safe extra facts for the caller.
 */
import { Failure, type FailureKind } from "../../core/failure";

/** How a case is classed: it picks the core's failure kind, so every surface answers the case the same way. */
export type SpecFailureOutcome = "invalid-input" | "not-found" | "error" | "rejected-by-policy";

const KINDS: Record<SpecFailureOutcome, FailureKind> = {
  "invalid-input": "invalid_input",
  "not-found": "not_found",
  error: "cannot_verify",
  "rejected-by-policy": "forbidden",
};

/** A Failure of the governed core whose details name the case as `cannotVerify` (what MCP clients read). */
export class SpecFailure extends Failure {
  override readonly name = "SpecFailure";
  constructor(
    code: string,
    message: string,
    outcome: SpecFailureOutcome = "error",
    details: Record<string, unknown> = {},
  ) {
    super(KINDS[outcome], message, { cannotVerify: code, ...details }, code);
  }
}

export function cannotVerify(
  code: string,
  message: string,
  outcome: SpecFailureOutcome = "error",
  details: Record<string, unknown> = {},
): SpecFailure {
  return new SpecFailure(code, message, outcome, details);
}
