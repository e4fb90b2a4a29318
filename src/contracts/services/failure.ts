/**
 * The one failure type of the spec services (project access, conformance check, payload validation): "cannot
 * verify" cases whose message says what to do next. Transport-free on purpose: the MCP surface maps it to a
 * tool failure (src/tools/spec-arbitration/failures.ts), and any other caller to its own answer. `code` names
 * the case for clients (an MCP result's `_meta.cannotVerify`); `details` are safe extra facts for the caller.
 */
export type SpecFailureOutcome = "invalid-input" | "error" | "rejected-by-policy";

export class SpecFailure extends Error {
  override readonly name = "SpecFailure";
  constructor(
    readonly code: string,
    message: string,
    readonly outcome: SpecFailureOutcome = "error",
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function cannotVerify(code: string, message: string, outcome: SpecFailureOutcome = "error", details: Record<string, unknown> = {}): SpecFailure {
  return new SpecFailure(code, message, outcome, details);
}
