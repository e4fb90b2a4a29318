import { locate, type ConformanceRule } from "./rule";

/**
 * A request property the contract defines is unknown to the implementation (clients send it; nobody reads it).
 * The comparison is the schema diff's (diff/schema-diff.ts, change kind "property-missing"); this rule
 * reports it.
 */
export const requestBodyPropertyMissing: ConformanceRule = {
  kind: "conformance",
  id: "request-body-property-missing",
  defaultSeverity: "warning",
  purpose: "The implementation knows every request body property the contract defines.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-property-removed)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const body of context.requestBodies(pair)) {
        for (const change of body.changes) {
          if (change.kind === "property-missing")
            context.report(locate(pair.contract, body.pointer + change.pointer), change.message);
        }
      }
    }
  },
};
