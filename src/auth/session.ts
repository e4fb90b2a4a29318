/**
 * The browser session after sign-in: an HMAC-signed, expiring `__Host-` cookie. It holds the identity only
 * (no tokens). The same secret signs remembered consent (the OAuth library's approvals cookie).
 */
import type { Env } from "../env";
import { devSignInEnabled } from "../env";
import type { Identity } from "./identity";

export const SESSION_COOKIE = "__Host-arbiter-session";
const SESSION_TTL_SECONDS = 8 * 3600;
/** Used only when development sign-in is on and no SESSION_SECRET is set (npm start, tests). */
const DEVELOPMENT_ONLY_SECRET = "arbiter-development-only-secret-do-not-deploy-0001";

export class SessionSecretMissing extends Error {
  override readonly name = "SessionSecretMissing";
}

export function sessionSecret(env: Env): string {
  const secret = env.SESSION_SECRET;
  if (secret && secret.length >= 32) return secret;
  if (devSignInEnabled(env)) return DEVELOPMENT_ONLY_SECRET;
  throw new SessionSecretMissing("SESSION_SECRET is not set (or shorter than 32 characters): run `wrangler secret put SESSION_SECRET`.");
}

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(value: string): Uint8Array {
  return Uint8Array.from(atob(value.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(`arbiter-session:${secret}`), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

interface SessionPayload extends Identity {
  exp: number;
}

export async function sealSession(identity: Identity, secret: string, now = Date.now()): Promise<string> {
  const payload: SessionPayload = { ...identity, exp: Math.floor(now / 1000) + SESSION_TTL_SECONDS };
  const body = base64url(encoder.encode(JSON.stringify(payload)));
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(body)));
  return `${body}.${base64url(signature)}`;
}

export async function openSession(value: string, secret: string, now = Date.now()): Promise<Identity | undefined> {
  const [body, signature, extra] = value.split(".");
  if (!body || !signature || extra !== undefined) return undefined;
  try {
    const ok = await crypto.subtle.verify("HMAC", await hmacKey(secret), fromBase64url(signature), encoder.encode(body));
    if (!ok) return undefined;
    const payload = JSON.parse(new TextDecoder().decode(fromBase64url(body))) as SessionPayload;
    if (typeof payload.exp !== "number" || payload.exp * 1000 <= now) return undefined;
    const { exp: _exp, ...identity } = payload;
    return identity;
  } catch {
    return undefined;
  }
}

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

export async function currentIdentity(request: Request, env: Env): Promise<Identity | undefined> {
  const value = readCookie(request, SESSION_COOKIE);
  if (!value) return undefined;
  return openSession(value, sessionSecret(env));
}

export function sessionCookie(value: string): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${SESSION_TTL_SECONDS}`;
}

export function clearSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`;
}
