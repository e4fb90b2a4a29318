import { locate, type ConformanceRule } from "./rule";

/** Response enum values stay within the contract's values. */
export const responseEnum: ConformanceRule = {
  kind: "conformance",
  id: "response-enum",
  defaultSeverity: "error",
  purpose: "Response enum values stay within the contract's values.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-property-enum-value-added)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const body of context.responseBodies(pair)) {
        for (const change of body.changes) {
          if (change.kind === "enum") context.report(locate(pair.contract, body.pointer + change.pointer), `status ${body.status}: ${change.message}`);
        }
      }
    }
  },
};
