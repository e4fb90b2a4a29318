/**
 * Accepted breaks: a team accepts a known breaking change of a project for a while, with a reason, an owner and an
 * expiry. An acceptance names the change by its fingerprint, a hash of the rule and the finding's location with the
 * path parameters unnamed: locations are operations and JSON pointers into them, never lines, so reformatting or
 * reordering the document keeps the fingerprint, and renaming `{id}` to `{orderId}` does too. A change of the same
 * rule at the same place (a property's type changing again, to something else) keeps it as well: the acceptance is
 * of "this place may break", which its expiry bounds.
 */
import type { AcceptanceRef } from "../types";

/** An acceptance in force, as the verdict needs it. */
export interface AcceptedBreak {
  id: string;
  rule: string;
  fingerprint: string;
  reason: string;
  owner: string;
  expiresAt: string;
}

/** "GET /orders/{id}#/x" -> "GET /orders/{}#/x": the path template's parameter names do not name the change. */
function unnamedParameters(location: string): string {
  const hash = location.indexOf("#");
  const head = hash < 0 ? location : location.slice(0, hash);
  if (!head.includes("{")) return location;
  return head.replace(/\{[^}/]*\}/g, "{}") + (hash < 0 ? "" : location.slice(hash));
}

/** FNV-1a over UTF-16 code units from one offset basis: two of them give 64 bits, synchronously. */
function fnv1a(text: string, basis: number): number {
  let hash = basis;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

const hex8 = (value: number) => value.toString(16).padStart(8, "0");

/** The fingerprint of a finding: "bc-" and 16 hex digits. */
export function breakFingerprint(rule: string, location: string): string {
  const key = `${rule}\u0000${unnamedParameters(location)}`;
  return `bc-${hex8(fnv1a(key, 0x811c9dc5))}${hex8(fnv1a(key, 0x2166136d))}`;
}

export const FINGERPRINT_PATTERN = /^bc-[0-9a-f]{16}$/;

/** Whether an acceptance is in force at `now` (its expiry is after now). */
export function isInForce(acceptance: Pick<AcceptedBreak, "expiresAt">, now: number): boolean {
  return Date.parse(acceptance.expiresAt) > now;
}

/** How every format names an acceptance: "accepted by <owner> until <date>: <reason> (<id>)". */
export function describeAcceptance(acceptance: AcceptanceRef): string {
  return `accepted by ${acceptance.owner} until ${acceptance.expiresAt}: ${acceptance.reason} (${acceptance.id})`;
}
