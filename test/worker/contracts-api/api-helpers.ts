/** Helpers for the CI API tests: REST calls with a bearer token (OAuth or CI key) against the real Worker. */
import { SELF } from "cloudflare:test";
import { API_RESOURCE, BASE, obtainTokens } from "../helpers";

export const API = `${BASE}/api/v1`;

export async function restToken(user: string, scope: string): Promise<string> {
  const { tokens } = await obtainTokens({ user, scope, resource: API_RESOURCE });
  return tokens.access_token;
}

export function call(token: string, method: string, path: string, body?: BodyInit | object, headers: Record<string, string> = {}): Promise<Response> {
  const isJson = body !== undefined && typeof body === "object" && !(body instanceof Uint8Array) && !(body instanceof ReadableStream) && !(body instanceof ArrayBuffer);
  return SELF.fetch(`${API}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(isJson ? { "Content-Type": "application/json" } : {}), ...headers },
    ...(body === undefined ? {} : { body: isJson ? JSON.stringify(body) : (body as BodyInit) }),
  });
}

export async function callJson<T = any>(token: string, method: string, path: string, body?: BodyInit | object, headers?: Record<string, string>): Promise<{ status: number; body: T }> {
  const response = await call(token, method, path, body, headers);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Non-JSON answers (401 challenges) are returned as text.
  }
  return { status: response.status, body: parsed as T };
}

export async function createKey(adminToken: string, spec: { name?: string; projects: string[]; scopes: string[]; expiresAt?: string }): Promise<{ id: string; secret: string }> {
  const { status, body } = await callJson(adminToken, "POST", "/keys", { name: spec.name ?? "test key", ...spec });
  if (status !== 201) throw new Error(`key creation failed: ${status} ${JSON.stringify(body)}`);
  return { id: body.key.id, secret: body.secret };
}
