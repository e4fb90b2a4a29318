/**
 * Binds one sign-in attempt to the browser that started it: state, nonce and the PKCE verifier live in a
 * short-lived, HMAC-signed `__Host-` cookie (key derived from SESSION_SECRET, separate from the session's).
 * The callback trusts nothing from the query alone: `state` must equal the cookie's, and the nonce and
 * verifier come only from the cookie.
 */
import { base64url } from "jose";
import { readCookie } from "../lib/cookies";
import { openSealed, sealValue } from "../lib/sealed";

export const OIDC_FLOW_COOKIE = "__Host-arbiter-oidc";
export const OIDC_FLOW_TTL_SECONDS = 600;

export interface OidcFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
  /** The issuer the attempt started with: a changed configuration invalidates attempts in flight. */
  issuer: string;
  /** Set when the attempt is at an organization's own provider (src/auth/org-oidc.ts): only that organization. */
  organizationId?: string;
}

const encoder = new TextEncoder();

export function randomToken(bytes = 32): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));
}

export async function pkceChallenge(verifier: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(verifier))));
}

export function newFlow(issuer: string, returnTo: string, organizationId?: string): OidcFlow {
  return {
    state: randomToken(),
    nonce: randomToken(),
    codeVerifier: randomToken(48),
    returnTo,
    issuer,
    ...(organizationId ? { organizationId } : {}),
  };
}

const FLOW_SEAL_PURPOSE = "arbiter-oidc-flow";

export async function sealFlow(flow: OidcFlow, secret: string, now = Date.now()): Promise<string> {
  return sealValue(flow, { purpose: FLOW_SEAL_PURPOSE, secret }, OIDC_FLOW_TTL_SECONDS, now);
}

/** The flow if the value is authentic and unexpired; undefined otherwise. */
export async function openFlow(value: string, secret: string, now = Date.now()): Promise<OidcFlow | undefined> {
  const sealed = await openSealed(value, { purpose: FLOW_SEAL_PURPOSE, secret }, now);
  if (!sealed) return undefined;
  const { state, nonce, codeVerifier, returnTo, issuer, organizationId } = sealed;
  if (
    typeof state !== "string" ||
    typeof nonce !== "string" ||
    typeof codeVerifier !== "string" ||
    typeof returnTo !== "string" ||
    typeof issuer !== "string"
  )
    return undefined;
  if (organizationId !== undefined && typeof organizationId !== "string") return undefined;
  return { state, nonce, codeVerifier, returnTo, issuer, ...(organizationId ? { organizationId } : {}) };
}

export function readFlowCookie(request: Request): string | undefined {
  return readCookie(request, OIDC_FLOW_COOKIE);
}

export function flowCookie(value: string): string {
  // SameSite=Lax: the provider sends the browser back with a top-level GET, which carries Lax cookies.
  return `${OIDC_FLOW_COOKIE}=${value}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${OIDC_FLOW_TTL_SECONDS}`;
}

export function clearFlowCookie(): string {
  return `${OIDC_FLOW_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`;
}

/** Compares two strings without an early exit on the first differing character. */
export function sameString(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  let difference = left.length ^ right.length;
  for (let i = 0; i < Math.max(left.length, right.length); i++) difference |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return difference === 0;
}
