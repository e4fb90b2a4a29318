/**
 * Helpers for the CI API tests: REST calls as a caller, either a bearer token (OAuth or CI key) through the real
 * Worker, or a verified principal (harness.ts) handed straight to the REST handler.
 */
import { env } from "cloudflare:test";
import contract from "../../../src/api/openapi.json";
import type { AuditRecord } from "../../../src/audit/record";
import { auditTrailIn } from "../../../src/audit/trail";
import type { AuditQuery } from "../../../src/audit/store-rpc";
import { indexDocument } from "../../../src/engine/normalize/normalize-document";
import { createPayloadValidator } from "../../../src/engine/payload/payload";
import { findOperation, findResponseKey } from "../../../src/engine/payload/payload-route";
import type { OpenApiDocument } from "../../../src/engine/types";
import { fetchAs, type Caller } from "../harness";
import { API_RESOURCE, BASE, obtainTokens } from "../helpers";

export const API = `${BASE}/api/v1`;

/**
 * An organization's stored audit records from `fromMs` on, oldest first. A REST call stores its record before it
 * answers, so they are all there once the calls returned.
 */
export async function storedAuditRecords(
  organizationId: string,
  fromMs: number,
  filter: Pick<AuditQuery, "target" | "kind"> = {},
): Promise<AuditRecord[]> {
  const page = await auditTrailIn(env.AUDIT_LOG)(organizationId).query(organizationId, {
    ...filter,
    from: fromMs,
    limit: 500,
  });
  return [...page.events].reverse();
}

/** A real REST token, through sign-in, consent and the token endpoint (for tests of OAuth, tokens and the front door). */
export async function restToken(user: string, scope: string): Promise<string> {
  const { tokens } = await obtainTokens({ user, scope, resource: API_RESOURCE });
  return tokens.access_token;
}

export function call(
  token: Caller,
  method: string,
  path: string,
  body?: BodyInit | object,
  headers: Record<string, string> = {},
): Promise<Response> {
  const isJson =
    body !== undefined &&
    typeof body === "object" &&
    !(body instanceof Uint8Array) &&
    !(body instanceof ReadableStream) &&
    !(body instanceof ArrayBuffer);
  return fetchAs(token, `${API}${path}`, {
    method,
    headers: { ...(isJson ? { "Content-Type": "application/json" } : {}), ...headers },
    ...(body === undefined ? {} : { body: isJson ? JSON.stringify(body) : (body as BodyInit) }),
  });
}

/**
 * Every answer callJson receives is checked against Arbiter's own REST contract (src/api/openapi.json) with the
 * payload validator: its status must be declared for the operation, its content type among that response's
 * media types, and a JSON body must match the schema. A test that sends what the contract does not describe on
 * purpose opts out with `{ unchecked: "<reason>" }`.
 */
const restContract = contract as OpenApiDocument;
const contractIndex = indexDocument(restContract);
const payloads = createPayloadValidator();

export function contractProblems(
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  payload: unknown,
): string[] {
  const path = new URL(url, BASE).pathname;
  const operation = findOperation(contractIndex, method, path);
  if (!operation) return [`the contract has no operation ${method} ${path}`];
  const responseKey = findResponseKey(operation, status);
  if (!responseKey) return [`the contract declares no ${status} for ${operation.label}`];
  const declared = Object.keys(
    (operation.operation.responses as Record<string, { content?: Record<string, unknown> }>)[responseKey]?.content ??
      {},
  );
  const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (declared.length && !declared.includes(mediaType))
    return [
      `${operation.label} ${status} answered ${mediaType || "no content type"}; the contract declares ${declared.join(", ")}`,
    ];
  if (!/json$/.test(mediaType) || typeof payload === "string") return [];
  const verdict = payloads.validate(restContract, "arbiter-rest", {
    method,
    path,
    status,
    payload,
    contentType: mediaType,
  });
  return verdict.approved
    ? []
    : [
        ...verdict.violations.map((v) => v.message),
        ...verdict.errors.slice(0, 10).map((e) => `${e.pointer || "(body)"}: ${e.message}`),
      ];
}

export async function callJson<T = any>(
  token: Caller,
  method: string,
  path: string,
  body?: BodyInit | object,
  headers?: Record<string, string>,
  options: { unchecked?: string } = {},
): Promise<{ status: number; body: T }> {
  const response = await call(token, method, path, body, headers);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Non-JSON answers (Markdown, JUnit) are returned as text.
  }
  if (!options.unchecked) {
    const problems = contractProblems(
      method,
      `${API}${path}`,
      response.status,
      response.headers.get("content-type"),
      parsed,
    );
    if (problems.length)
      throw new Error(
        `${method} ${path} answered ${response.status}, which src/api/openapi.json does not allow:\n  ${problems.join("\n  ")}\n${text.slice(0, 500)}`,
      );
  }
  return { status: response.status, body: parsed as T };
}

export async function createKey(
  adminToken: Caller,
  spec: { name?: string; projects: string[]; scopes: string[]; expiresAt?: string },
): Promise<{ id: string; secret: string }> {
  const { status, body } = await callJson(adminToken, "POST", "/keys", { name: spec.name ?? "test key", ...spec });
  if (status !== 201) throw new Error(`key creation failed: ${status} ${JSON.stringify(body)}`);
  return { id: body.key.id, secret: body.secret };
}
