/**
 * The contract between the conformance engine (parsing, rules, verdicts, payload validation) and its callers
 * (storage, REST, MCP tools, CLI). Everything here is plain data so it can be stored and sent as JSON.
 */

/** What a rule (or a policy) may set. */
export type RuleSeverity = "error" | "warning" | "info";

/**
 * A finding's severity in a verdict: a rule's, or "accepted" for an error a team accepted for a while
 * (acceptance.ts): recorded with who accepted it, why and until when, and not counted against approval.
 */
export type Severity = RuleSeverity | "accepted";

/** What a verdict says about a finding's use in recorded traffic (src/engine/verdict/usage.ts). */
export interface UsageEvidence {
  /** The window, in days up to today (UTC). */
  days: number;
  /** Recorded exchanges of the finding's operation in the window. */
  exchanges: number;
  /** What the break touches, when the location tells, and how often it was exercised. */
  touched?: { what: string; count: number };
}

/** The acceptance an "accepted" finding names. */
export interface AcceptanceRef {
  id: string;
  reason: string;
  owner: string;
  /** ISO 8601 date-time after which the break is an error again. */
  expiresAt: string;
}

/**
 * One finding. `location` is "<METHOD> <pathTemplate>" followed by a JSON pointer inside that operation, e.g.
 * "GET /orders/{id}#/responses/200/content/application~1json/schema/properties/total"; findings about the whole
 * document use a document pointer, e.g. "#/paths/~1internal~1jobs".
 */
export interface Violation {
  rule: string;
  severity: Severity;
  location: string;
  message: string;
  /**
   * On errors and accepted findings: a stable name of the change (rule and location, path parameters unnamed;
   * acceptance.ts), what an acceptance matches. Reformatting or reordering the document does not change it.
   */
  fingerprint?: string;
  /** On accepted findings: the acceptance that turned the error into "accepted". */
  acceptance?: AcceptanceRef;
  /**
   * On errors and accepted findings of a project with recorded traffic in the window: how often the operation, and
   * the status, parameter or property the change touches, was exercised (src/engine/verdict/usage.ts).
   */
  usage?: UsageEvidence;
}

export interface RuleSummary {
  rule: string;
  severity: Severity;
  count: number;
}

/** `approved` is true when no violation has severity "error". */
export interface Verdict {
  approved: boolean;
  totalViolations: number;
  violations: Violation[];
  summary: RuleSummary[];
}

/** Why an uploaded document was refused: `path` is a JSON pointer into the document ("" for the whole text). */
export interface DocumentProblem {
  path: string;
  message: string;
}

/** A parsed, validated OpenAPI 3.0/3.1/3.2 document. */
export type OpenApiDocument = Record<string, unknown>;

export type ParsedDocument =
  | { ok: true; document: OpenApiDocument; openapiVersion: string; format: "json" | "yaml"; operationCount: number }
  | { ok: false; problems: DocumentProblem[] };

/** `path` may be a template (/orders/{id}) or a concrete path (/orders/ord_1001). */
export interface PayloadCheckInput {
  method: string;
  path: string;
  status: number;
  payload: unknown;
  contentType?: string;
}

/** One leaf validation error: `pointer` is a JSON pointer into the payload ("" for the root). */
export interface PayloadError {
  pointer: string;
  keyword: string;
  message: string;
}

/** `operation` is "<METHOD> <pathTemplate>" of the matched operation; `responseKey` the chosen response entry. */
export interface PayloadVerdict {
  approved: boolean;
  operation?: string;
  responseKey?: string;
  errors: PayloadError[];
  violations: Violation[];
}
