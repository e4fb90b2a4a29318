import { locate, type ConformanceRule } from "./rule";

/**
 * The implementation's request body schema accepts every value the contract allows as far as bounds, lengths,
 * item and property counts, multipleOf, uniqueItems and patterns go, at any depth. The comparison is
 * rules/support/schema-constraints.ts; this rule reports the changes it finds in request bodies.
 */
export const requestBodyConstraint: ConformanceRule = {
  kind: "conformance",
  id: "request-body-constraint",
  defaultSeverity: "error",
  purpose: "Request body bounds, lengths, counts, multipleOf, uniqueItems and patterns accept every value the contract allows.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-property-max-decreased, request-property-max-length-decreased, request-property-pattern-added and related)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const body of context.requestBodies(pair)) {
        for (const change of body.changes) {
          if (change.kind === "constraint") context.report(locate(pair.contract, body.pointer + change.pointer), change.message);
        }
      }
    }
  },
};
