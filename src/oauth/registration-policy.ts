/**
 * What Dynamic Client Registration (RFC 7591) accepts beyond the OAuth library's own checks. The library
 * refuses dangerous schemes, fragments, userinfo and a list with no usable redirect URI, but it stores names
 * of any length, any number of redirect URIs, and URIs with surrounding spaces or wildcards verbatim. It runs
 * this policy (as `clientRegistrationCallback`) before storing the client, so every registration passes it.
 *
 * Redirect URIs must be exact, absolute and canonical: `new URL(uri).href === uri`, except that a bare origin
 * may omit the trailing "/" that URL parsing adds (`https://app.example` reads as `https://app.example/`).
 * No whitespace or control characters, no "*", no fragment; https, or http on a loopback host only.
 * Other (private-use, RFC 8252) schemes such as Cursor's `cursor://...` may be listed beside an https or
 * loopback one, as the library allows: it never sends a code to them while `allowPrivateUseRedirectUris` is off.
 * Pure: no I/O; the result is the RFC 7591 §3.2.2 error to send, or undefined to allow.
 */

export const MAX_CLIENT_NAME = 200;
export const MAX_REDIRECT_URIS = 10;

export interface RegistrationRefusal {
  code: "invalid_redirect_uri" | "invalid_client_metadata";
  description: string;
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** A client value quoted in an error: cut, and anything but printable ASCII escaped, so it cannot mislead. */
function quote(value: string, max = 80): string {
  const cut = value.length > max ? `${value.slice(0, max)}...` : value;
  return `"${cut.replace(/[^\x20-\x7E]|["\\]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`;
}

function nameRefusal(field: string, value: unknown): RegistrationRefusal | undefined {
  if (typeof value !== "string") return undefined;
  const length = [...value].length;
  if (length <= MAX_CLIENT_NAME) return undefined;
  return {
    code: "invalid_client_metadata",
    description: `${field} is ${length} characters long; the limit is ${MAX_CLIENT_NAME}. Register a shorter name.`,
  };
}

/** Why one redirect URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  if (/[\s\u0000-\u001F\u007F-\u009F]/.test(uri)) return "contains whitespace or a control character";
  if (uri.includes("*")) return 'contains "*": wildcards are not supported, register each exact redirect URI';
  if (uri.includes("#")) return "contains a fragment (#), which a redirect URI must not have";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not an absolute URI";
  }
  if (url.href !== uri && url.href !== `${uri}/`)
    return `is not in canonical form; it reads as ${quote(url.href)}, register it exactly so`;
  if (url.protocol === "http:" && !LOOPBACK_HOST.test(url.hostname))
    return "uses http on a host that is not loopback (localhost, 127.0.0.1, [::1]); use https";
  return undefined;
}

/** The refusal for a registration request's raw metadata, or undefined when it may be stored. */
export function registrationRefusal(metadata: Record<string, unknown>): RegistrationRefusal | undefined {
  for (const [field, value] of Object.entries(metadata)) {
    if (field === "client_name" || field.startsWith("client_name#")) {
      const refusal = nameRefusal(quote(field, 40).slice(1, -1), value);
      if (refusal) return refusal;
    }
  }
  const uris = metadata.redirect_uris;
  if (!Array.isArray(uris)) return undefined; // the library has already refused a missing or malformed list
  if (uris.length > MAX_REDIRECT_URIS) {
    return {
      code: "invalid_redirect_uri",
      description: `${uris.length} redirect_uris were given; the limit is ${MAX_REDIRECT_URIS}. Register only the callbacks this client uses.`,
    };
  }
  for (const [index, uri] of uris.entries()) {
    if (typeof uri !== "string") continue;
    const problem = redirectUriProblem(uri);
    if (problem)
      return { code: "invalid_redirect_uri", description: `redirect_uris[${index}] ${quote(uri)} ${problem}.` };
  }
  return undefined;
}
