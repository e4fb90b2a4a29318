/**
 * The operator's API, `/operator/v1/...`: the deployment's platform administrator creates, changes, suspends,
 * resumes, exports and deletes organizations and sets the platform's caps. It is not an OAuth resource: the
 * operator authenticates with the ARBITER_OPERATOR_KEY secret as a bearer token (unset: the API answers 404 as if
 * it did not exist). The development sign-in never grants it. Every call that names an organization leaves an audit
 * record in that organization's trail (user "operator"); every change is also in the directory's change log with
 * its before and after (docs/operations.md).
 */
import type { AuditRecord } from "../audit/record";
import { digestArguments } from "../audit/record";
import { auditSinkFor } from "../audit/sink";
import { newCorrelationId, CORRELATION_HEADER } from "../core/correlation";
import { Failure } from "../core/failure";
import {
  changeSettings,
  createOrganization,
  deleteOrganization,
  exportArchive,
  exportJob,
  exportOrganization,
  getOrganization,
  grantSweepOf,
  listMembers,
  listOrganizations,
  startExport,
  CHANGES_PER_PAGE,
  organizationChanges,
  organizationView,
  directoryUsage,
  platformCaps,
  putMember,
  removeMember,
  setOrganizationSecret,
  setOrganizationStatus,
  setPlatformCaps,
} from "../organizations/admin";
import { directoryStub } from "../directory/client";
import type { SecretName } from "../directory/rpc";
import type { Env } from "../env";
import { logError } from "../lib/log";
import { failureProblem } from "../core/problem";
import { type AfterRule, afterQuery, json, MEMBER_AFTER, pageQuery, unpagedLimit } from "./contracts-http";
import { ORGANIZATION_ID } from "../directory/settings";
import { readBodyLimited } from "../lib/body";

export const OPERATOR_PREFIX = "/operator/v1";
const MAX_BODY = 64 * 1024;
const SECRET_NAMES: readonly SecretName[] = ["signInClientSecret", "upstreamCredential"];

const encoder = new TextEncoder();

function operatorKeyMatches(env: Env, request: Request): boolean {
  const configured = env.ARBITER_OPERATOR_KEY?.trim();
  const given = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1]?.trim();
  if (!configured || !given) return false;
  const left = encoder.encode(configured);
  const right = encoder.encode(given);
  return left.byteLength === right.byteLength && crypto.subtle.timingSafeEqual(left, right);
}

async function body(request: Request): Promise<Record<string, unknown>> {
  const read = await readBodyLimited(request, MAX_BODY);
  if (!read.ok) {
    if (read.reason === "empty") return {};
    throw new Failure(
      "invalid_input",
      `The request body is unreadable or larger than ${MAX_BODY} bytes.`,
      {},
      "invalid_body",
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(read.bytes));
  } catch {
    throw new Failure("invalid_input", "The request body is not valid JSON.", {}, "invalid_json");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new Failure("invalid_input", "The request body must be a JSON object.", {}, "invalid_body");
  return value as Record<string, unknown>;
}

/** `If-Match: "<revision>"` (or a bare number): the revision the caller read, for a change without lost updates. */
export function expectedRevision(request: Request): number | null {
  const header = request.headers.get("if-match");
  if (!header) return null;
  const revision = Number(header.replace(/^W\//, "").replace(/"/g, ""));
  if (!Number.isInteger(revision) || revision < 1)
    throw new Failure(
      "invalid_input",
      'If-Match must be the revision you read, e.g. If-Match: "3".',
      {},
      "invalid_revision",
    );
  return revision;
}

interface Route {
  method: string;
  pattern: RegExp;
  handle(request: Request, env: Env, match: string[]): Promise<Response>;
}

const ORG = "([a-z0-9][a-z0-9-]{0,62})";
const EXPORT_ID = "([0-9a-f-]{36})";
const ORGANIZATION_AFTER: AfterRule = {
  accepts: (value) => ORGANIZATION_ID.test(value),
  what: "an organization id (1-63 lowercase letters, digits and dashes)",
};

/** A member's e-mail address from its path segment, which the caller percent-encodes (`@` as `%40`). */
function emailSegment(segment: string | undefined): string {
  try {
    return decodeURIComponent(segment ?? "");
  } catch {
    throw new Failure(
      "invalid_input",
      `The member's address in the path ("${(segment ?? "").slice(0, 60)}") is not percent-encoded UTF-8. Encode it ` +
        "with encodeURIComponent (RFC 3986) and retry.",
      {},
      "invalid_path",
    );
  }
}

const routes: Route[] = [
  {
    method: "GET",
    pattern: /^\/organizations$/,
    handle: async (request, env) => {
      // ?limit= and ?after= page the organizations by id, as the member list pages by e-mail.
      const url = new URL(request.url);
      const { limit } = unpagedLimit(url);
      const { organizations, nextAfter } = await listOrganizations(env, {
        limit,
        after: afterQuery(url, ORGANIZATION_AFTER),
      });
      return json({ organizations: organizations.map(organizationView), nextAfter });
    },
  },
  {
    method: "POST",
    pattern: /^\/organizations$/,
    async handle(request, env) {
      const { id, ...settings } = await body(request);
      return json({ organization: organizationView(await createOrganization(env, id, settings)) }, 201);
    },
  },
  {
    method: "GET",
    pattern: new RegExp(`^/organizations/${ORG}$`),
    handle: async (_r, env, [id]) =>
      json({
        organization: organizationView(await getOrganization(env, id as string)),
        grantSweep: await grantSweepOf(env, id as string),
      }),
  },
  {
    method: "PATCH",
    pattern: new RegExp(`^/organizations/${ORG}$`),
    async handle(request, env, [id]) {
      const record = await changeSettings(
        env,
        id as string,
        await body(request),
        { kind: "operator" },
        {
          expectedRevision: expectedRevision(request),
        },
      );
      return json({ organization: organizationView(record) });
    },
  },
  {
    method: "PUT",
    pattern: new RegExp(`^/organizations/${ORG}/secrets/([A-Za-z]+)$`),
    async handle(request, env, [id, name]) {
      if (!SECRET_NAMES.includes(name as SecretName))
        throw new Failure(
          "not_found",
          `Unknown secret "${name}": secrets are ${SECRET_NAMES.join(", ")}.`,
          {},
          "unknown_secret",
        );
      const { value } = await body(request);
      const record = await setOrganizationSecret(env, id as string, name as SecretName, value ?? null, {
        kind: "operator",
      });
      return json({ organization: organizationView(record) });
    },
  },
  {
    method: "POST",
    pattern: new RegExp(`^/organizations/${ORG}/(suspend|resume)$`),
    async handle(_request, env, [id, action]) {
      const record = await setOrganizationStatus(env, id as string, action === "suspend" ? "suspended" : "active");
      return json({ organization: organizationView(record) });
    },
  },
  {
    method: "GET",
    pattern: new RegExp(`^/organizations/${ORG}/export$`),
    handle: async (_r, env, [id]) =>
      new Response(await exportOrganization(env, id as string), {
        headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
      }),
  },
  {
    method: "POST",
    pattern: new RegExp(`^/organizations/${ORG}/exports$`),
    handle: async (_r, env, [id]) => json({ export: await startExport(env, id as string) }, 202),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/organizations/${ORG}/exports/${EXPORT_ID}$`),
    handle: async (_r, env, [id, exportId]) => json({ export: await exportJob(env, id as string, exportId as string) }),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/organizations/${ORG}/exports/${EXPORT_ID}/archive$`),
    async handle(_r, env, [id, exportId]) {
      const archive = await exportArchive(env, id as string, exportId as string);
      return new Response(archive.body, {
        headers: {
          "Content-Type": "application/json; charset=utf-8",
          "Content-Length": String(archive.size),
          "Content-Disposition": `attachment; filename="${id}-${exportId}.json"`,
          "Cache-Control": "no-store",
        },
      });
    },
  },
  {
    method: "DELETE",
    pattern: new RegExp(`^/organizations/${ORG}$`),
    handle: async (_r, env, [id]) =>
      json({ organization: organizationView(await deleteOrganization(env, id as string)) }, 202),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/organizations/${ORG}/members$`),
    handle: async (request, env, [id]) => {
      // ?limit= and ?after= page the members by e-mail, as GET /api/v1/organization/members does.
      const url = new URL(request.url);
      const { limit } = unpagedLimit(url);
      return json(await listMembers(env, id as string, { limit, after: afterQuery(url, MEMBER_AFTER) }));
    },
  },
  {
    method: "PUT",
    pattern: new RegExp(`^/organizations/${ORG}/members/([^/]+)$`),
    async handle(request, env, [id, email]) {
      const { role } = await body(request);
      return json(await putMember(env, id as string, emailSegment(email), role, { kind: "operator" }));
    },
  },
  {
    method: "DELETE",
    pattern: new RegExp(`^/organizations/${ORG}/members/([^/]+)$`),
    handle: async (_r, env, [id, email]) =>
      json(await removeMember(env, id as string, emailSegment(email), { kind: "operator" })),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/organizations/${ORG}/changes$`),
    handle: async (request, env, [id]) =>
      json(await organizationChanges(env, id as string, pageQuery(new URL(request.url), CHANGES_PER_PAGE))),
  },
  {
    method: "GET",
    pattern: /^\/changes$/,
    handle: async (request, env) =>
      json(await organizationChanges(env, null, pageQuery(new URL(request.url), CHANGES_PER_PAGE))),
  },
  { method: "GET", pattern: /^\/caps$/, handle: async (_r, env) => json({ caps: await platformCaps(env) }) },
  {
    method: "GET",
    pattern: /^\/directory$/,
    handle: async (_r, env) => json({ directory: await directoryUsage(env) }),
  },
  {
    method: "PUT",
    pattern: /^\/caps$/,
    handle: async (request, env) => json({ caps: await setPlatformCaps(env, await body(request)) }),
  },
  {
    method: "POST",
    pattern: /^\/secrets\/reencrypt$/,
    handle: async (_r, env) => json(await directoryStub(env).reencryptSecrets()),
  },
];

/** The organization a path names, for its audit record. */
function organizationOf(path: string): string | undefined {
  return new RegExp(`^/organizations/${ORG}(/|$)`).exec(path)?.[1];
}

/** The path with its names replaced by their parameters, as the audit record's target. */
function routeTemplate(path: string): string {
  return path
    .replace(/^\/organizations\/[^/]+/, "/organizations/:id")
    .replace(/\/members\/[^/]+$/, "/members/:email")
    .replace(/\/exports\/[^/]+/, "/exports/:export");
}

async function audit(env: Env, request: Request, path: string, status: number, correlationId: string, started: number) {
  const organizationId = organizationOf(path);
  if (!organizationId || (request.method === "GET" && !/\/(export|archive)$/.test(path))) return;
  // A deletion's record is the directory's change log: the organization's own trail is removed with its data.
  if (request.method === "DELETE" && path === `/organizations/${organizationId}`) return;
  const record: AuditRecord = {
    correlationId,
    time: new Date(started).toISOString(),
    organizationId,
    userId: "operator",
    clientId: "operator-key",
    kind: "route",
    target: `${request.method} ${OPERATOR_PREFIX}${routeTemplate(path)}`,
    argumentsDigest: await digestArguments({ path }),
    durationMs: Date.now() - started,
    outcome: status < 400 ? "ok" : status === 429 ? "rate-limited" : "invalid-input",
    reason: status < 400 ? "" : `HTTP ${status}`,
  };
  await auditSinkFor(env).record(record);
}

/** Serves /operator/v1/...; undefined for other paths. */
export async function handleOperator(request: Request, env: Env): Promise<Response | undefined> {
  const url = new URL(request.url);
  if (url.pathname !== OPERATOR_PREFIX && !url.pathname.startsWith(`${OPERATOR_PREFIX}/`)) return undefined;
  if (!env.ARBITER_OPERATOR_KEY?.trim())
    return failureProblem(new Failure("not_found", `Nothing is served at ${url.pathname}.`));
  const correlationId = newCorrelationId();
  const started = Date.now();
  const path = url.pathname.slice(OPERATOR_PREFIX.length).replace(/\/+$/, "") || "/";
  let response: Response;
  if (!operatorKeyMatches(env, request)) {
    response = failureProblem(
      new Failure(
        "unauthenticated",
        "The operator API needs `Authorization: Bearer <ARBITER_OPERATOR_KEY>` (the deployment's operator key; docs/operations.md).",
        {},
        "operator_key_required",
      ),
      { "WWW-Authenticate": 'Bearer realm="arbiter-operator"' },
    );
  } else {
    const candidates = routes.filter((route) => route.pattern.test(path));
    const route = candidates.find((candidate) => candidate.method === request.method);
    try {
      if (!route)
        throw candidates.length
          ? new Failure("method_not_allowed", `${request.method} is not supported on ${OPERATOR_PREFIX}${path}.`)
          : new Failure(
              "not_found",
              `No operator route ${request.method} ${OPERATOR_PREFIX}${path}. See docs/operations.md.`,
            );
      response = await route.handle(request, env, (route.pattern.exec(path) ?? []).slice(1));
    } catch (error) {
      if (!(error instanceof Failure)) {
        logError("operator route failed", { path, error });
        response = failureProblem(
          new Failure("internal", "The operator route failed unexpectedly; see the logs.", {}, "internal_error"),
        );
      } else response = failureProblem(error);
    }
    await audit(env, request, path, response.status, correlationId, started).catch((error) =>
      logError("operator audit record not stored", { error }),
    );
  }
  const answered = new Response(response.body, response);
  answered.headers.set(CORRELATION_HEADER, correlationId);
  return answered;
}
