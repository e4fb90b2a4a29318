/**
 * Operation patterns: the string comparison a wildcard-free pattern uses (and matchesCanonical, which rules call
 * with an indexed operation's canonical path) answer exactly as matching segment by segment does.
 */
import { describe, expect, it } from "vitest";
import { canonicalPath } from "../../../../src/engine/normalize/normalize-document";
import { compileOperationPattern } from "../../../../src/engine/diff/operation-pattern";

/** The segment-by-segment reading of a pattern, written out as the module's comment defines it. */
function bySegments(pattern: string, method: string, path: string): boolean {
  const [patternMethod = "*", patternPath = "/"] = pattern.trim().split(/\s+/);
  if (patternMethod !== "*" && patternMethod.toUpperCase() !== method.toUpperCase()) return false;
  const segments = canonicalPath(patternPath).split("/").slice(1);
  const anyRest = segments.at(-1) === "**";
  if (anyRest) segments.pop();
  const candidate = canonicalPath(path)
    .split("/")
    .slice(1)
    .filter((segment, _index, all) => !(all.length === 1 && segment === ""));
  if (anyRest ? candidate.length < segments.length : candidate.length !== segments.length) return false;
  return segments.every((segment, index) => segment === "*" || segment === candidate[index]);
}

const PATTERNS = [
  "GET /health",
  "get /health/",
  "* /orders/{id}",
  "POST /orders/{orderId}/items",
  "GET /",
  "* /**",
  "GET /internal/**",
  "* /a/*/c",
  "DELETE /a//b",
  "GET /x/{}",
];
const PATHS = [
  "/health",
  "/health/",
  "/health//",
  "/healthz",
  "/",
  "//",
  "/orders/{id}",
  "/orders/{order_id}",
  "/orders/1",
  "/orders/{id}/items",
  "/internal",
  "/internal/x/y",
  "/a/b/c",
  "/a//b",
  "/x/{y}",
  "health",
  "a/health",
];

describe("operation patterns", () => {
  it("match every path as segment-by-segment matching does, by raw or canonical path", () => {
    for (const text of PATTERNS) {
      const pattern = compileOperationPattern(text);
      for (const method of ["GET", "post", "DELETE"]) {
        for (const path of PATHS) {
          const expected = bySegments(text, method, path);
          expect(pattern.matches(method, path), `${text} vs ${method} ${path}`).toBe(expected);
          expect(pattern.matchesCanonical(method, canonicalPath(path)), `${text} vs canonical ${method} ${path}`).toBe(
            expected,
          );
        }
      }
    }
  });

  it("matches the documented examples", () => {
    expect(compileOperationPattern("GET /orders/{id}").matches("GET", "/orders/{orderId}")).toBe(true);
    expect(compileOperationPattern("* /internal/**").matches("PATCH", "/internal")).toBe(true);
    expect(compileOperationPattern("GET /health").matches("POST", "/health")).toBe(false);
    expect(compileOperationPattern("* /a/*/c").matches("GET", "/a/b/c/d")).toBe(false);
  });
});
