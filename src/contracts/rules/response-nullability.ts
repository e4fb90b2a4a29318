import { locate, type ConformanceRule } from "./rule";

/** The implementation returns null only where the contract allows it. */
export const responseNullability: ConformanceRule = {
  kind: "conformance",
  id: "response-nullability",
  defaultSeverity: "error",
  purpose: "The implementation returns null only where the contract allows it.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-property-became-nullable)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const body of context.responseBodies(pair)) {
        for (const change of body.changes) {
          if (change.kind === "nullable") context.report(locate(pair.contract, body.pointer + change.pointer), `status ${body.status}: ${change.message}`);
        }
      }
    }
  },
};
