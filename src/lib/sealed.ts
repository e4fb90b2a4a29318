/**
 * Sealed values for cookies: `base64url(JSON of the payload plus exp).base64url(HMAC-SHA-256 of the first part)`,
 * the key derived from the secret with a purpose label, so a value sealed for one purpose (the browser session,
 * a sign-in attempt) never opens as another. The browser session and the OpenID Connect flow cookie both use
 * this one format; values written before it was shared open unchanged.
 */
import { base64url } from "jose";

const encoder = new TextEncoder();

export interface SealKey {
  /** e.g. "arbiter-session": part of the HMAC key. */
  purpose: string;
  secret: string;
}

/**
 * Imported keys by purpose and secret: importing costs more than signing, and a deployment has a handful. The keys
 * themselves are kept, not the import's promise: a request must not wait on a promise another request settles.
 */
const importedKeys = new Map<string, CryptoKey>();

async function hmacKey({ purpose, secret }: SealKey): Promise<CryptoKey> {
  const material = `${purpose}:${secret}`;
  const known = importedKeys.get(material);
  if (known) return known;
  const key = await crypto.subtle.importKey("raw", encoder.encode(material), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
  importedKeys.set(material, key);
  return key;
}

/** The HMAC-SHA-256 of `text` under `key`, base64url: a tag that proves this deployment wrote `text`. */
export async function tagText(text: string, key: SealKey): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(key), encoder.encode(text))));
}

/** Whether `tag` is tagText(text, key); false for anything malformed. */
export async function hasTag(text: string, tag: string, key: SealKey): Promise<boolean> {
  try {
    return await crypto.subtle.verify(
      "HMAC",
      await hmacKey(key),
      new Uint8Array(base64url.decode(tag)),
      encoder.encode(text),
    );
  } catch {
    return false;
  }
}

/** Seals `payload` with an expiry `ttlSeconds` after `now` (milliseconds). */
export async function sealValue(payload: object, key: SealKey, ttlSeconds: number, now = Date.now()): Promise<string> {
  const body = base64url.encode(JSON.stringify({ ...payload, exp: Math.floor(now / 1000) + ttlSeconds }));
  return `${body}.${await tagText(body, key)}`;
}

/**
 * The payload (without `exp`) of an authentic, unexpired sealed value; undefined for anything else (altered,
 * another key or purpose, expired, malformed). The caller checks the payload's shape.
 */
export async function openSealed(
  value: string,
  key: SealKey,
  now = Date.now(),
): Promise<Record<string, unknown> | undefined> {
  const [body, signature, extra] = value.split(".");
  if (!body || !signature || extra !== undefined) return undefined;
  if (!(await hasTag(body, signature, key))) return undefined;
  try {
    const payload: unknown = JSON.parse(new TextDecoder().decode(base64url.decode(body)));
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return undefined;
    const { exp, ...rest } = payload as Record<string, unknown>;
    if (typeof exp !== "number" || exp * 1000 <= now) return undefined;
    return rest;
  } catch {
    return undefined;
  }
}
