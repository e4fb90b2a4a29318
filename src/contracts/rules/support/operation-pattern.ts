/**
 * Operation patterns used by exemptions and constitution options: "METHOD /path", METHOD may be "*", a path
 * segment "*" matches one segment, a final "/**" matches any rest (including nothing), and parameter names do
 * not matter ("/orders/{id}" matches "/orders/{orderId}").
 */
import { canonicalPath } from "../../normalize-document";

export interface OperationPattern {
  readonly source: string;
  matches(method: string, path: string): boolean;
}

const PATTERN_SHAPE = /^(\*|[A-Za-z]+)\s+(\/\S*)$/;

export function isOperationPattern(text: string): boolean {
  return PATTERN_SHAPE.test(text.trim());
}

export function compileOperationPattern(text: string): OperationPattern {
  const match = PATTERN_SHAPE.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not an operation pattern such as "GET /orders/{id}" or "* /internal/**"`);
  const method = (match[1] ?? "*").toUpperCase();
  const segments = canonicalPath(match[2] ?? "/").split("/").slice(1);
  const anyRest = segments.at(-1) === "**";
  if (anyRest) segments.pop();
  return {
    source: text,
    matches(candidateMethod, candidatePath) {
      if (method !== "*" && method !== candidateMethod.toUpperCase()) return false;
      const candidate = canonicalPath(candidatePath).split("/").slice(1).filter((segment, index, all) => !(all.length === 1 && segment === ""));
      if (anyRest ? candidate.length < segments.length : candidate.length !== segments.length) return false;
      return segments.every((segment, index) => segment === "*" || segment === candidate[index]);
    },
  };
}
