/**
 * GraphQL `errors` from an upstream, split in two: what a client may see (the failed path and a fixed message per
 * error class, chosen by `extensions.code` when it names a class we know), and what the operator's log gets (the
 * upstream's own message, credentials redacted as audit records redact them, the organization's credential
 * itself removed, cut to a bounded length). An upstream's text can hold anything: table names, user data, the
 * credential it was sent. None of it reaches a tool result, an error message or `structuredContent`.
 */
import { scrubText } from "../audit/scrub";
import { redactSecrets } from "../lib/log";

export interface UpstreamError {
  /** A fixed description of the error class; never the upstream's text. */
  message: string;
  path?: Array<string | number>;
}

export interface SplitErrors {
  /** For the client. */
  shown: UpstreamError[];
  /** For the operator's log only: the upstream's messages, redacted and bounded. */
  logged: string[];
}

const MAX_ERRORS_REPORTED = 10;
/** Characters of one upstream message kept in the log. */
export const MAX_LOGGED_ERROR_TEXT = 200;
const MAX_PATH_SEGMENTS = 20;
/** A path segment is shown only when it is a field name or a list index: anything else could be free text. */
const FIELD_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

/** The error classes of common GraphQL servers (Apollo's codes, which most others copy), each with its message. */
const CLASS_MESSAGES: Readonly<Record<string, string>> = {
  FORBIDDEN: "access denied",
  UNAUTHENTICATED: "Arbiter's credentials were not accepted",
  NOT_FOUND: "not found",
  BAD_USER_INPUT: "an argument was refused",
  GRAPHQL_VALIDATION_FAILED: "the operation was refused (the upstream schema may not match policies/graphql/schema.graphql)",
  GRAPHQL_PARSE_FAILED: "the operation was refused (the upstream schema may not match policies/graphql/schema.graphql)",
  INTERNAL_SERVER_ERROR: "the upstream failed to resolve this",
};
export const UNCLASSIFIED_MESSAGE = "the order API reported an error";

function classMessage(error: Record<string, unknown>): string {
  const extensions = error.extensions;
  const code = extensions && typeof extensions === "object" ? (extensions as { code?: unknown }).code : undefined;
  return typeof code === "string" && Object.hasOwn(CLASS_MESSAGES, code) ? (CLASS_MESSAGES[code] as string) : UNCLASSIFIED_MESSAGE;
}

function safePath(path: unknown): Array<string | number> | undefined {
  if (!Array.isArray(path) || path.length === 0 || path.length > MAX_PATH_SEGMENTS) return undefined;
  const fine = path.every((segment) => (typeof segment === "number" && Number.isInteger(segment) && segment >= 0) || (typeof segment === "string" && FIELD_NAME.test(segment)));
  return fine ? (path as Array<string | number>) : undefined;
}

/** The upstream's message as the log may hold it: one line, credentials and `secrets` removed, bounded. */
export function loggableUpstreamText(text: string, secrets: readonly string[]): string {
  let line = text.split("\n")[0]!.trim();
  // The organization's own credential first: an upstream that echoes what it was sent holds it verbatim, and it
  // need not look like a credential to the patterns.
  for (const secret of secrets) if (secret.length >= 4) line = line.split(secret).join("[redacted]");
  line = scrubText(redactSecrets(line));
  return line.length <= MAX_LOGGED_ERROR_TEXT ? line : `${line.slice(0, MAX_LOGGED_ERROR_TEXT - 1)}…`;
}

export function splitUpstreamErrors(errors: unknown, secrets: readonly string[]): SplitErrors {
  const shown: UpstreamError[] = [];
  const logged: string[] = [];
  if (!Array.isArray(errors)) return { shown, logged };
  for (const error of errors.slice(0, MAX_ERRORS_REPORTED)) {
    const raw = error && typeof error === "object" ? (error as Record<string, unknown>) : {};
    const path = safePath(raw.path);
    shown.push(path ? { message: classMessage(raw), path } : { message: classMessage(raw) });
    logged.push(typeof raw.message === "string" && raw.message.trim() ? loggableUpstreamText(raw.message, secrets) : "unspecified error");
  }
  return { shown, logged };
}

export function describeUpstreamErrors(errors: readonly UpstreamError[]): string {
  return errors.map((error) => (error.path ? `${error.message} (at ${error.path.join(".")})` : error.message)).join("; ");
}
