/**
 * The one failure type of the contract services (project access, conformance check, payload validation): "cannot
 * verify" cases whose message says what to do next. Transport-free on purpose: the MCP surface maps it to a
 * tool result or JSON-RPC error through the core's failure mapping (src/core/failure-mapping.ts). `code` names
 * the case for clients (an MCP result's `_meta.cannotVerify`); `details` are safe extra facts for the caller.
 */
import { Failure, type FailureKind } from "../../core/failure";
import type { DocumentProblem } from "../../engine";
import { MAX_PROBLEMS_SHOWN } from "../store/limits";
import type { StoreFailure } from "../store/records";

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

/**
 * The kind of every failure code the contract store and services answer with: one table for every surface, so the
 * same case is the same kind everywhere (REST takes its status from the kind, MCP its audit outcome and JSON-RPC
 * code). `test/worker/contracts-mcp/failure-codes.test.ts` drives each through REST and MCP against a fixed table.
 */
export const CONTRACT_FAILURE_KINDS = {
  unknown_project: "not_found",
  no_active_contract: "not_found",
  unknown_contract: "not_found",
  unknown_key: "not_found",
  unknown_snapshot: "not_found",
  unknown_verdict: "not_found",
  no_snapshot: "not_found",
  missing_content: "conflict",
  busy: "conflict",
  already_accepted: "conflict",
  storage_quota_exceeded: "insufficient_storage",
  invalid_document: "unprocessable",
} as const satisfies Record<string, FailureKind>;

export type ContractFailureCode = keyof typeof CONTRACT_FAILURE_KINDS;

/** A contract store or service failure as the core's Failure, its kind from the table, the case named for MCP. */
export function contractFailure(
  code: ContractFailureCode,
  message: string,
  details: Record<string, unknown> = {},
): Failure {
  return new Failure(CONTRACT_FAILURE_KINDS[code], message, { cannotVerify: code, ...details }, code);
}

/** An uploaded or edited document that is not a valid OpenAPI document: its first problems, and what to do. */
export function invalidDocumentFailure(problems: readonly DocumentProblem[]): Failure {
  const shown = problems.slice(0, MAX_PROBLEMS_SHOWN);
  const first = shown[0];
  return new Failure(
    "unprocessable",
    `The document is not a valid OpenAPI document (${problems.length} problem${problems.length === 1 ? "" : "s"}${first ? `, first: ${first.path || "(document)"}: ${first.message}` : ""}). Nothing was stored; fix the document and upload it again.`,
    { problems: shown, totalProblems: problems.length },
    "invalid_document",
  );
}

/** A store's failure as every surface answers it: the kind from the one table above. */
export function storeFailure(failure: StoreFailure, project: string): Failure {
  if (failure.code === "unknown_project") return unknownProjectFailure(project);
  const details =
    failure.code === "storage_quota_exceeded" ? { usedBytes: failure.usedBytes, quotaBytes: failure.quotaBytes } : {};
  return new Failure(CONTRACT_FAILURE_KINDS[failure.code], failure.message, details, failure.code);
}

/** A service's failure result (a store failure, or a document that is not OpenAPI) as the Failure to throw. */
export function serviceFailure(
  result: StoreFailure | { ok: false; code: "invalid_document"; problems: readonly DocumentProblem[] },
  project: string,
): Failure {
  return result.code === "invalid_document" ? invalidDocumentFailure(result.problems) : storeFailure(result, project);
}

/** There is no such project: the same failure, and the same next step, on every surface. */
export function unknownProjectFailure(project: string): Failure {
  const nextStep = `POST /api/v1/projects/${project}/contracts`;
  return contractFailure(
    "unknown_project",
    `There is no project "${project}" in your organization yet: upload a contract first: ${nextStep} (scope contracts.write) with the OpenAPI document as the body. spec_projects_list (MCP) and GET /api/v1/projects list the projects there are.`,
    { nextStep },
  );
}
