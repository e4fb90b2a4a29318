/**
 * GraphQL `errors` from an upstream, read as what a client may see (the failed path and a fixed message per error
 * class, chosen by `extensions.code` when it names a class we know) and what the operator's log gets (the same
 * class and path, as `CLASS at path`). An upstream's text can hold anything: table names, user data, the
 * credential it was sent. None of it reaches a tool result, an error message, `structuredContent`, a log line or
 * telemetry; an operator who needs the upstream's own words reads the upstream's log for the same time.
 */

export interface UpstreamError {
  /** A fixed description of the error class; never the upstream's text. */
  message: string;
  path?: Array<string | number>;
}

export interface SplitErrors {
  /** For the client. */
  shown: UpstreamError[];
  /** For the operator's log: each error's class (a known code, else "unclassified") and safe path; never its text. */
  logged: string[];
}

const MAX_ERRORS_REPORTED = 10;
const MAX_PATH_SEGMENTS = 20;
/** A path segment is shown only when it is a field name or a list index: anything else could be free text. */
const FIELD_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

/** The error classes of common GraphQL servers (Apollo's codes, which most others copy), each with its message. */
const CLASS_MESSAGES: Readonly<Record<string, string>> = {
  FORBIDDEN: "access denied",
  UNAUTHENTICATED: "Arbiter's credentials were not accepted",
  NOT_FOUND: "not found",
  BAD_USER_INPUT: "an argument was refused",
  GRAPHQL_VALIDATION_FAILED:
    "the operation was refused (the upstream schema may not match policies/graphql/schema.graphql)",
  GRAPHQL_PARSE_FAILED: "the operation was refused (the upstream schema may not match policies/graphql/schema.graphql)",
  INTERNAL_SERVER_ERROR: "the upstream failed to resolve this",
};
export const UNCLASSIFIED_MESSAGE = "the order API reported an error";

/** The error's class: its `extensions.code` when that is a class we know, else undefined. */
function knownClass(error: Record<string, unknown>): string | undefined {
  const extensions = error.extensions;
  const code = extensions && typeof extensions === "object" ? (extensions as { code?: unknown }).code : undefined;
  return typeof code === "string" && Object.hasOwn(CLASS_MESSAGES, code) ? code : undefined;
}

function safePath(path: unknown): Array<string | number> | undefined {
  if (!Array.isArray(path) || path.length === 0 || path.length > MAX_PATH_SEGMENTS) return undefined;
  const fine = path.every(
    (segment) =>
      (typeof segment === "number" && Number.isInteger(segment) && segment >= 0) ||
      (typeof segment === "string" && FIELD_NAME.test(segment)),
  );
  return fine ? (path as Array<string | number>) : undefined;
}

export function splitUpstreamErrors(errors: unknown): SplitErrors {
  const shown: UpstreamError[] = [];
  const logged: string[] = [];
  if (!Array.isArray(errors)) return { shown, logged };
  for (const error of errors.slice(0, MAX_ERRORS_REPORTED)) {
    const raw = error && typeof error === "object" ? (error as Record<string, unknown>) : {};
    const path = safePath(raw.path);
    const code = knownClass(raw);
    const message = code === undefined ? UNCLASSIFIED_MESSAGE : (CLASS_MESSAGES[code] as string);
    shown.push(path ? { message, path } : { message });
    logged.push(`${code ?? "unclassified"}${path ? ` at ${path.join(".")}` : ""}`);
  }
  return { shown, logged };
}

export function describeUpstreamErrors(errors: readonly UpstreamError[]): string {
  return errors
    .map((error) => (error.path ? `${error.message} (at ${error.path.join(".")})` : error.message))
    .join("; ");
}
