/**
 * Write-only secrets of organizations (their sign-in client secret, their upstream credential), encrypted at rest
 * with AES-256-GCM. The key is derived from the Worker secret DIRECTORY_ENCRYPTION_KEY; each ciphertext names the
 * key it was sealed with (a short id derived from the key), so rotation is: put the new key in
 * DIRECTORY_ENCRYPTION_KEY and the old one in DIRECTORY_ENCRYPTION_KEY_PREVIOUS, call the operator's re-encrypt
 * route, then remove the previous key (docs/operations.md). A secret's value leaves the directory only to the code
 * that uses it (the upstream request's header, the token request to the provider): never in an answer, export,
 * log, audit record or telemetry.
 */
import { sha256Hex } from "../lib/sha256";
import { isDevelopmentOrigin } from "./validate";

export interface SecretKeyVars {
  PUBLIC_URL: string;
  DIRECTORY_ENCRYPTION_KEY?: string;
  DIRECTORY_ENCRYPTION_KEY_PREVIOUS?: string;
}

/** Used only when PUBLIC_URL is on loopback and no key is set (`npm start`, tests): never in a deployment. */
const DEVELOPMENT_KEY = "arbiter-development-directory-key: not a secret, never used when deployed";

export class SecretKeyMissing extends Error {
  override readonly name = "SecretKeyMissing";
  constructor() {
    super(
      "This deployment has no DIRECTORY_ENCRYPTION_KEY, so it cannot store secrets. The operator sets it with `wrangler secret put DIRECTORY_ENCRYPTION_KEY` (32 characters or more; docs/operations.md).",
    );
  }
}

export interface SealedSecret {
  keyId: string;
  iv: Uint8Array;
  ciphertext: Uint8Array;
}

interface KeyEntry {
  id: string;
  key: CryptoKey;
}

const encoder = new TextEncoder();

/** The AES-256-GCM key of `secret` (HKDF-SHA-256, purpose-labelled), and its short public id. */
async function keyEntry(secret: string): Promise<KeyEntry> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
  const key = await crypto.subtle.deriveKey(
    {
      name: "HKDF",
      hash: "SHA-256",
      salt: encoder.encode("arbiter-directory"),
      info: encoder.encode("secrets/aes-256-gcm"),
    },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
  const id = (await sha256Hex(`arbiter-directory-key-id:${secret}`)).slice(0, 8);
  return { id, key };
}

/** The current key and, during a rotation, the previous one. */
export async function secretKeys(vars: SecretKeyVars): Promise<{ current: KeyEntry; previous?: KeyEntry }> {
  const configured = vars.DIRECTORY_ENCRYPTION_KEY?.trim();
  if (configured && configured.length < 32) throw new SecretKeyMissing();
  const secret = configured || (isDevelopmentOrigin(vars.PUBLIC_URL) ? DEVELOPMENT_KEY : undefined);
  if (!secret) throw new SecretKeyMissing();
  const previous = vars.DIRECTORY_ENCRYPTION_KEY_PREVIOUS?.trim();
  return { current: await keyEntry(secret), ...(previous ? { previous: await keyEntry(previous) } : {}) };
}

/** `organizationId/name` is bound into the ciphertext: a sealed secret copied to another row does not open. */
function additionalData(organizationId: string, name: string): Uint8Array {
  return encoder.encode(`${organizationId}/${name}`);
}

export async function sealSecret(
  vars: SecretKeyVars,
  organizationId: string,
  name: string,
  value: string,
): Promise<SealedSecret> {
  const { current } = await secretKeys(vars);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: additionalData(organizationId, name) },
      current.key,
      encoder.encode(value),
    ),
  );
  return { keyId: current.id, iv, ciphertext };
}

/** The value, or undefined when no configured key opens it (the key was rotated away: set the secret again). */
export async function openSecret(
  vars: SecretKeyVars,
  organizationId: string,
  name: string,
  sealed: SealedSecret,
): Promise<string | undefined> {
  const { current, previous } = await secretKeys(vars);
  const entry = [current, previous].find((candidate) => candidate?.id === sealed.keyId);
  if (!entry) return undefined;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: sealed.iv, additionalData: additionalData(organizationId, name) },
      entry.key,
      sealed.ciphertext,
    );
    return new TextDecoder().decode(plain);
  } catch {
    return undefined;
  }
}
