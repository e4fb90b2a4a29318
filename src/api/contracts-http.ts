/** Request parsing and error answers shared by the contracts, snapshots, builds and CI key routes. */
import { currentSpan, recordMetric } from "../lib/telemetry/span";
import type { z } from "zod";
import { readBodyLimited, readBodyWhole } from "../lib/body";
import { DEFAULT_PAGE_SIZE, MAX_DOCUMENT_BYTES, MAX_PAGE_SIZE } from "../contracts/store/limits";
import { humaniseIssues } from "../lib/humanise";
import { Failure } from "../core/failure";
import { checkProjectAccess } from "../contracts/services/project-access";
import { isProjectName } from "../contracts/store/names";
import type { ApiRequest, ApiRoute } from "./router";

/** The answer to a body that ended before its Content-Length (or whose connection broke while it was read). */
export function bodyTruncated(read: { received: number; declared?: number }): Failure {
  const declared = read.declared === undefined ? "" : ` of the ${read.declared} its Content-Length declares`;
  return new Failure(
    "invalid_input",
    `The request body was truncated: it ended after ${read.received} bytes${declared}. Nothing was stored; send the whole body again.`,
    { receivedBytes: read.received, ...(read.declared === undefined ? {} : { declaredBytes: read.declared }) },
    "body_truncated",
  );
}

/** A body whose connection broke before its Content-Length was reached (the runtime does not say where). */
export function bodyCutOff(declared: number): Failure {
  return new Failure(
    "invalid_input",
    `The request body was truncated: the connection broke before the ${declared} bytes its Content-Length declares arrived. Nothing was stored; send the whole body again.`,
    { declaredBytes: declared },
    "body_truncated",
  );
}

export function tooLarge(limit: number, what = "request body"): Failure {
  return new Failure(
    "too_large",
    `The ${what} is larger than the limit of ${limit} bytes (${(limit / 1048576).toFixed(0)} MiB). Nothing was stored.`,
    { limitBytes: limit },
    "payload_too_large",
  );
}

/** Reads and validates a small JSON body; returns the data or the error response. */
export async function readJsonBody<S extends z.ZodType>(
  request: Request,
  limit: number,
  schema: S,
): Promise<{ data: z.infer<S> }> {
  const read = await readBodyLimited(request, limit);
  if (!read.ok) {
    if (read.reason === "too_large") throw tooLarge(limit);
    if (read.reason === "empty")
      throw new Failure("invalid_input", "The request body is empty: send a JSON object.", {}, "empty_body");
    if (read.reason === "truncated") throw bodyTruncated(read);
    throw new Failure("invalid_input", "The request body is longer than its Content-Length.", {}, "invalid_body");
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(read.bytes));
  } catch {
    throw new Failure("invalid_input", "The request body is not valid UTF-8 JSON.", {}, "invalid_json");
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new Failure(
      "invalid_input",
      `Invalid request body: ${humaniseIssues(parsed.error, { where: "body" })}.`,
      {},
      "invalid_request",
    );
  return { data: parsed.data };
}

/**
 * `?limit=` of every list route, validated the same way everywhere: null when absent. Lists that do not page
 * (projects, keys, clients) answer everything by default and at most `limit` items when it is given.
 */
export function limitQuery(url: URL): { limit: number | null } {
  const limitText = url.searchParams.get("limit");
  if (limitText === null) return { limit: null };
  const limit = /^\d{1,6}$/.test(limitText) ? Number(limitText) : Number.NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new Failure(
      "invalid_input",
      `Invalid query parameters: limit must be an integer from 1 to ${MAX_PAGE_SIZE}, got "${limitText.slice(0, 20)}"; pass ?limit=<1-${MAX_PAGE_SIZE}> or leave it out.`,
      {},
      "invalid_query",
    );
  }
  return { limit };
}

/** `?limit=` and `?before=` of the paged list routes (contracts, snapshots, builds, verdicts, change logs). */
export function pageQuery(url: URL, defaultLimit = DEFAULT_PAGE_SIZE): { limit: number; before: number | null } {
  const limit = limitQuery(url);
  const beforeText = url.searchParams.get("before");
  const before = beforeText === null ? null : Number(beforeText);
  if (before !== null && (!Number.isInteger(before) || before < 1))
    throw new Failure(
      "invalid_input",
      "Invalid query parameters: before must be a positive integer (the nextBefore of the previous page); pass ?before=<nextBefore>.",
      {},
      "invalid_query",
    );
  return { limit: limit.limit ?? defaultLimit, before };
}

/** `?limit=` of a list that does not page: validated like every list's, and `before` refused rather than ignored. */
export function unpagedLimit(url: URL): { limit: number | null } {
  if (url.searchParams.has("before"))
    throw new Failure(
      "invalid_input",
      "Invalid query parameters: this list is not paged (it answers every item), so before does not apply: leave it out.",
      {},
      "invalid_query",
    );
  return limitQuery(url);
}

/** What a list's `?after=` names: a test of the value, and how the refusal describes it. */
export interface AfterRule {
  accepts: (value: string) => boolean;
  /** e.g. "a project name", completing "after must be ..." */
  what: string;
}

const PROJECT_AFTER: AfterRule = { accepts: isProjectName, what: "a project name" };

/** The longest e-mail address a member list names (RFC 5321's path limit). */
const MAX_EMAIL_LENGTH = 320;

/** `?after=` of the members lists (the administrators' and the operator's): a member's e-mail. */
export const MEMBER_AFTER: AfterRule = {
  accepts: (value) => value.length > 0 && value.length <= MAX_EMAIL_LENGTH,
  what: `a member's e-mail of at most ${MAX_EMAIL_LENGTH} characters`,
};

/**
 * `?after=` of a list paged by name (projects by default): the nextAfter of the previous page; null when absent,
 * refused when `rule` does not accept it.
 */
export function afterQuery(url: URL, rule: AfterRule = PROJECT_AFTER): string | null {
  const after = url.searchParams.get("after");
  if (after === null || rule.accepts(after)) return after;
  throw new Failure(
    "invalid_input",
    `Invalid query parameters: after must be ${rule.what} (the nextAfter of the previous page), got "${after.slice(0, 80)}"; pass ?after=<nextAfter> or leave it out.`,
    {},
    "invalid_query",
  );
}

/** A positive integer path parameter such as a version or an id. */
export function positiveInt(value: string | undefined, name: string): { value: number } {
  const number = Number(value);
  if (!value || !/^\d{1,15}$/.test(value) || number < 1)
    throw new Failure(
      "invalid_input",
      `${name} must be a positive integer, got "${String(value).slice(0, 40)}".`,
      {},
      "invalid_path",
    );
  return { value: number };
}

export function json(data: unknown, status = 200): Response {
  return Response.json(data, { status, headers: { "Cache-Control": "no-store" } });
}

export function queryObject(url: URL, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = url.searchParams.get(name);
    if (value !== null) out[name] = value;
  }
  return out;
}

/** A refused query string, in plain words: "commit is required: pass ?commit=<sha>". */
export function invalidQuery(error: z.ZodError, placeholders: Record<string, string> = {}): Failure {
  return new Failure(
    "invalid_input",
    `Invalid query parameters: ${humaniseIssues(error, { where: "query", placeholders })}.`,
    {},
    "invalid_query",
  );
}

/** Reads an uploaded document into a holder that the upload path can clear once the bytes are stored. */
export async function readDocument(request: Request): Promise<{ holder: { bytes?: Uint8Array } }> {
  const read = await readBodyWhole(request, MAX_DOCUMENT_BYTES);
  if (read.ok) {
    // Uploads' sizes for the operator (src/telemetry): a span attribute and the arbiter.upload.size histogram.
    currentSpan()?.set({ "arbiter.upload.bytes": read.bytes.byteLength });
    recordMetric(
      "arbiter.upload.size",
      { "arbiter.operation": new URL(request.url).pathname.split("/").at(-1) ?? "" },
      read.bytes.byteLength,
    );
    return { holder: { bytes: read.bytes } };
  }
  if (read.reason === "too_large") throw tooLarge(MAX_DOCUMENT_BYTES, "document");
  if (read.reason === "empty")
    throw new Failure(
      "invalid_input",
      "The request body is empty: send the OpenAPI document (JSON or YAML) as the body.",
      {},
      "empty_body",
    );
  if (read.reason === "truncated") throw bodyTruncated(read);
  if (read.reason === "cut_off") throw bodyCutOff(read.declared);
  throw new Failure("invalid_input", "The request body is longer than its Content-Length.", {}, "invalid_body");
}

export function projectRoute(
  method: string,
  suffix: string,
  requiredScopes: readonly string[],
  handle: (input: ApiRequest & { project: string; url: URL }) => Promise<Response>,
): ApiRoute {
  return {
    method,
    path: `/api/v1/projects/:project${suffix}`,
    requiredScopes,
    async handle(input) {
      const project = checkProjectAccess(input.principal, input.params.project);
      return handle({ ...input, project, url: new URL(input.request.url) });
    },
  };
}
