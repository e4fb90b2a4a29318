import { locate, type ConformanceRule } from "./rule";

/**
 * The implementation does not require a request property that the contract leaves optional or does not define.
 * The comparison is the schema diff's (diff/schema-diff.ts, change kind "required-added"); this rule
 * reports it.
 */
export const requestBodyRequiredProperty: ConformanceRule = {
  kind: "conformance",
  id: "request-body-required-property",
  defaultSeverity: "error",
  purpose: "The implementation requires no request body property the contract does not require.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (new-required-request-property)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const body of context.requestBodies(pair)) {
        for (const change of body.changes) {
          if (change.kind === "required-added")
            context.report(locate(pair.contract, body.pointer + change.pointer), change.message);
        }
      }
    }
  },
};
