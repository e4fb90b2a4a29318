/**
 * The one failure type of every governed surface (MCP tools, resources, prompts and subscriptions in both eras,
 * REST routes, /chat): what went wrong as a closed `kind`, a stable machine-readable `code`, a message that is safe
 * to show (it never holds upstream text, a token or a stack), and safe `details`. Where a failure ends up (a tool
 * result, a JSON-RPC error, a REST problem) is decided in one place, failure-mapping.ts, from the table below.
 * Transport-free on purpose: services throw it without knowing who called them.
 */
import type { AuditOutcome } from "../audit/record";

export interface FailureClass {
  /** HTTP status of a REST answer (and of nothing else: MCP answers in-band). */
  status: number;
  /** What the audit record says. */
  outcome: Exclude<AuditOutcome, "ok">;
  /** JSON-RPC error code when the failure answers a resource or prompt request. */
  jsonRpcCode: number;
}

/**
 * Every kind of failure, with how each surface sees it. A `Record` over the kind union: adding a kind without its
 * row does not compile, so the mapping stays exhaustive.
 */
export const FAILURE_CLASSES = {
  invalid_input: { status: 400, outcome: "invalid-input", jsonRpcCode: -32602 },
  unauthenticated: { status: 401, outcome: "rejected-by-policy", jsonRpcCode: -32600 },
  insufficient_scope: { status: 403, outcome: "rejected-by-policy", jsonRpcCode: -32600 },
  forbidden: { status: 403, outcome: "rejected-by-policy", jsonRpcCode: -32600 },
  not_found: { status: 404, outcome: "invalid-input", jsonRpcCode: -32002 },
  method_not_allowed: { status: 405, outcome: "invalid-input", jsonRpcCode: -32601 },
  conflict: { status: 409, outcome: "invalid-input", jsonRpcCode: -32602 },
  too_large: { status: 413, outcome: "invalid-input", jsonRpcCode: -32602 },
  unprocessable: { status: 422, outcome: "invalid-input", jsonRpcCode: -32602 },
  rate_limited: { status: 429, outcome: "rate-limited", jsonRpcCode: -32000 },
  /** The organization's storage quota (or its store's database) is full: nothing was stored. */
  insufficient_storage: { status: 507, outcome: "rejected-by-policy", jsonRpcCode: -32000 },
  cannot_verify: { status: 409, outcome: "error", jsonRpcCode: -32603 },
  upstream_error: { status: 502, outcome: "upstream-error", jsonRpcCode: -32603 },
  unavailable: { status: 503, outcome: "upstream-error", jsonRpcCode: -32603 },
  timeout: { status: 504, outcome: "timeout", jsonRpcCode: -32603 },
  internal: { status: 500, outcome: "error", jsonRpcCode: -32603 },
} as const satisfies Record<string, FailureClass>;

export type FailureKind = keyof typeof FAILURE_CLASSES;

export class Failure extends Error {
  override readonly name: string = "Failure";
  /** Stable machine-readable reason (REST `code`, MCP `_meta.code` / `data.code`); the kind unless more precise. */
  readonly code: string;
  /** What the audit record's reason says, when it should differ from the message (set with `auditedAs`). */
  auditReason: string | undefined;
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly details: Record<string, unknown> = {},
    code?: string,
  ) {
    super(message);
    this.code = code ?? kind;
  }

  /** The same failure, with `reason` as the audit record's reason (a short fact, never a payload or a secret). */
  auditedAs(reason: string): this {
    this.auditReason = reason;
    return this;
  }

  get status(): number {
    return FAILURE_CLASSES[this.kind].status;
  }

  get outcome(): Exclude<AuditOutcome, "ok"> {
    return FAILURE_CLASSES[this.kind].outcome;
  }
}

/** The kind a handler's audit outcome stands for, for failures described by their outcome (tool modules, the gateway). */
export function kindForOutcome(outcome: Exclude<AuditOutcome, "ok">): FailureKind {
  switch (outcome) {
    case "invalid-input":
      return "invalid_input";
    case "rejected-by-policy":
      return "forbidden";
    case "rate-limited":
      return "rate_limited";
    case "upstream-error":
      return "upstream_error";
    case "timeout":
      return "timeout";
    case "error":
      return "internal";
  }
}

/** The kind a REST status stands for (REST handlers that answer with a status and a code). */
export function kindForStatus(status: number): FailureKind {
  for (const [kind, row] of Object.entries(FAILURE_CLASSES) as Array<[FailureKind, FailureClass]>) {
    if (row.status === status && kind !== "cannot_verify" && kind !== "insufficient_scope") return kind;
  }
  if (status >= 500) return "internal";
  return "invalid_input";
}
