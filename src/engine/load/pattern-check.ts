/**
 * Contract upload refuses a `pattern` (or `patternProperties` key) that cannot run in linear time, naming it and
 * where it is, so the contract's author learns at upload rather than when traffic is checked (safe-pattern.ts
 * says which ECMA-262 features run). Example and default values are data, not schemas, and are not read.
 */
import { isRecord, pointerOf } from "../normalize/normalize-pointer";
import { patternProblem, patternPropertiesKeyProblem } from "./safe-pattern";
import type { DocumentProblem } from "../types";

const DATA_KEYS = new Set(["example", "examples", "default", "const", "enum"]);
const MAX_LISTED = 20;

export function unsafePatternProblems(document: unknown): DocumentProblem[] {
  const problems: DocumentProblem[] = [];
  const seen = new Set<unknown>();
  const visit = (node: unknown, tokens: (string | number)[]): void => {
    if (problems.length >= MAX_LISTED || typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...tokens, index]));
      return;
    }
    const record = node as Record<string, unknown>;
    if (typeof record.pattern === "string") {
      const problem = patternProblem(record.pattern);
      if (problem)
        problems.push({
          path: pointerOf([...tokens, "pattern"]),
          message: `${problem}: rewrite it without that feature (see docs/security.md)`,
        });
    }
    if (isRecord(record.patternProperties)) {
      for (const key of Object.keys(record.patternProperties)) {
        const problem = patternProblem(key) ?? patternPropertiesKeyProblem(key);
        if (problem)
          problems.push({
            path: pointerOf([...tokens, "patternProperties", key]),
            message: `patternProperties ${problem}: rewrite it without that feature (see docs/security.md)`,
          });
      }
    }
    for (const [key, value] of Object.entries(record)) {
      if (DATA_KEYS.has(key) || key.startsWith("x-")) continue;
      visit(value, [...tokens, key]);
    }
  };
  visit(document, []);
  return problems;
}
