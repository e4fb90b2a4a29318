/**
 * The browser session after sign-in: an HMAC-signed, expiring `__Host-` cookie. It holds the identity only
 * (no tokens). The same secret signs remembered consent (the OAuth library's approvals cookie).
 */
import { type Env, sessionSecret } from "../env";
import { readCookie } from "../lib/cookies";
import { openSealed, sealValue } from "../lib/sealed";
import type { Identity } from "./identity";
import { directoryStub } from "../directory/client";

export const SESSION_COOKIE = "__Host-arbiter-session";
const SESSION_TTL_SECONDS = 8 * 3600;
const SESSION_SEAL_PURPOSE = "arbiter-session";

export async function sealSession(identity: Identity, secret: string, now = Date.now()): Promise<string> {
  return sealValue(identity, { purpose: SESSION_SEAL_PURPOSE, secret }, SESSION_TTL_SECONDS, now);
}

export async function openSession(value: string, secret: string, now = Date.now()): Promise<Identity | undefined> {
  return (await openSealed(value, { purpose: SESSION_SEAL_PURPOSE, secret }, now)) as Identity | undefined;
}

/**
 * The signed-in identity, as the directory sees it now: a session of a removed member, or of an organization that
 * is suspended or deleted, counts as signed out; a member whose role changed has the new role at once.
 */
export async function currentIdentity(request: Request, env: Env): Promise<Identity | undefined> {
  const value = readCookie(request, SESSION_COOKIE);
  if (!value) return undefined;
  const identity = await openSession(value, sessionSecret(env));
  if (!identity) return undefined;
  const admission = await directoryStub(env).admit(
    identity.organizationId,
    identity.email ?? null,
    identity.subject,
    identity.role,
  );
  return admission.ok ? { ...identity, role: admission.role } : undefined;
}

export function sessionCookie(value: string): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${SESSION_TTL_SECONDS}`;
}

export function clearSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`;
}
