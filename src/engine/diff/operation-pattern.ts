/**
 * Operation patterns used by exemptions and constitution options: "METHOD /path", METHOD may be "*", a path
 * segment "*" matches one segment, a final "/**" matches any rest (including nothing), and parameter names do
 * not matter ("/orders/{id}" matches "/orders/{orderId}").
 */
import { canonicalPath } from "../normalize/normalize-document";

export interface OperationPattern {
  readonly source: string;
  matches(method: string, path: string): boolean;
  /** `matches` for a path already through canonicalPath (an indexed operation's `localPath`). */
  matchesCanonical(method: string, canonical: string): boolean;
}

const PATTERN_SHAPE = /^(\*|[A-Za-z]+)\s+(\/\S*)$/;

export function isOperationPattern(text: string): boolean {
  return PATTERN_SHAPE.test(text.trim());
}

/** The segments after the first "/", except that "/" alone has none. */
function candidateSegments(canonical: string): string[] {
  return canonical
    .split("/")
    .slice(1)
    .filter((segment, _index, all) => !(all.length === 1 && segment === ""));
}

export function compileOperationPattern(text: string): OperationPattern {
  const match = PATTERN_SHAPE.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not an operation pattern such as "GET /orders/{id}" or "* /internal/**"`);
  const method = (match[1] ?? "*").toUpperCase();
  const segments = canonicalPath(match[2] ?? "/")
    .split("/")
    .slice(1);
  const anyRest = segments.at(-1) === "**";
  if (anyRest) segments.pop();
  // Without wildcards a pattern matches one canonical path, compared as a string: constitution rules ask once
  // per operation of every upload, and splitting each path into segments cost more than the rule's own work.
  // A canonical path not starting with "/" (never a document's; "/" alone has no segment) takes the general way.
  const literal = !anyRest && !segments.includes("*") ? `/${segments.join("/")}` : undefined;
  const matchesCanonical = (candidateMethod: string, canonical: string): boolean => {
    if (method !== "*" && method !== candidateMethod.toUpperCase()) return false;
    if (literal !== undefined && canonical.charCodeAt(0) === 47 && canonical !== "/") return canonical === literal;
    const candidate = candidateSegments(canonical);
    if (anyRest ? candidate.length < segments.length : candidate.length !== segments.length) return false;
    return segments.every((segment, index) => segment === "*" || segment === candidate[index]);
  };
  return {
    source: text,
    matchesCanonical,
    matches: (candidateMethod, candidatePath) =>
      (method === "*" || method === candidateMethod.toUpperCase()) &&
      matchesCanonical(candidateMethod, canonicalPath(candidatePath)),
  };
}
