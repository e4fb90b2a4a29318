/**
 * CSRF protection for every console form that changes something (all of them are POST):
 * 1. a token bound to the browser session: HMAC-SHA256 of the session cookie's value under a key derived from
 *    SESSION_SECRET, sent as the hidden field `csrf`. A new sign-in gives a new cookie and so a new token; a
 *    page from another site can neither read the cookie nor compute the token.
 * 2. the Origin header must be this deployment's (PUBLIC_URL's origin or the origin the request arrived on);
 *    without an Origin header, only a browser-declared same-origin request (Sec-Fetch-Site) is accepted.
 * The filter form of the audit page is a GET form with no effect and carries no token (a token in a URL would
 * end up in history and logs).
 */
import { type Env, sessionSecret } from "../../env";
import { base64url } from "jose";
import { SESSION_COOKIE } from "../../auth/session";
import { readCookie } from "../../lib/cookies";
import { postedFromThisSite } from "../../auth/origin-guard";

export const CSRF_FIELD = "csrf";

const encoder = new TextEncoder();

async function tokenFor(sessionValue: string, secret: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(`arbiter-console-csrf:${secret}`),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return base64url.encode(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(sessionValue))));
}

/** The token for the session this request carries (callers have already checked the session is valid). */
export async function csrfToken(request: Request, env: Env): Promise<string> {
  return tokenFor(readCookie(request, SESSION_COOKIE) ?? "", sessionSecret(env));
}

/** Why a form post must be refused, or undefined when it passes both checks. */
export async function csrfRefusal(request: Request, env: Env, submitted: unknown): Promise<string | undefined> {
  if (!postedFromThisSite(request, env)) return "The form was sent from another site (its Origin is not this server).";
  const session = readCookie(request, SESSION_COOKIE);
  if (typeof submitted !== "string" || !session) return "The form carries no valid security token.";
  const expected = encoder.encode(await tokenFor(session, sessionSecret(env)));
  const given = encoder.encode(submitted);
  if (expected.byteLength !== given.byteLength || !crypto.subtle.timingSafeEqual(expected, given))
    return "The form's security token does not match your session.";
  return undefined;
}
