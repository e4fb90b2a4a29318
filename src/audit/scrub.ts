/**
 * Last line of defence before a record is logged or stored: free-text fields (target, reason) never carry
 * a credential, even when a caller put one where it did not belong (an argument name, an unknown route).
 * Arguments themselves only ever appear as a digest.
 */
import type { AuditRecord } from "./record";

const REDACTED = "[redacted]";
const MAX_TARGET = 200;
const MAX_REASON = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  // Authorization header values.
  /\b(?:Bearer|Basic)\s+[^\s"',;]+/gi,
  // Tokens issued by this server: userId:grantId:secret.
  /[A-Za-z0-9._~%-]+:[A-Za-z0-9_-]{8,}:[A-Za-z0-9_-]{16,}/g,
  // JWTs.
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  // key=value pairs whose key names a secret.
  /\b(?:access_token|refresh_token|id_token|client_secret|code_verifier|password|secret|api[_-]?key|token)\s*[=:]\s*[^\s&"',;]+/gi,
];

/** Long opaque strings mixing letters and digits (API keys, secrets); UUIDs (correlation ids) are kept. */
const OPAQUE = /[A-Za-z0-9_-]{32,}/g;

function looksOpaque(text: string): boolean {
  return /[0-9]/.test(text) && /[A-Za-z]/.test(text) && !UUID.test(text);
}

export function scrubText(text: string): string {
  let result = text;
  for (const pattern of CREDENTIAL_PATTERNS) result = result.replace(pattern, REDACTED);
  return result.replace(OPAQUE, (match) => (looksOpaque(match) ? REDACTED : match));
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function scrubAuditRecord(record: AuditRecord): AuditRecord {
  return {
    ...record,
    // Tool names and OAuth event names come from this server; a route target may hold a caller's path.
    target: clip(record.kind === "route" ? scrubText(record.target) : record.target, MAX_TARGET),
    reason: clip(scrubText(record.reason), MAX_REASON),
  };
}
