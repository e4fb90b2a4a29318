import { locate, type ConformanceRule } from "./rule";

/** A property the contract requires in a response is declared by the implementation. */
export const responseRequiredProperty: ConformanceRule = {
  kind: "conformance",
  id: "response-required-property",
  defaultSeverity: "error",
  purpose: "A property the contract requires in a response is declared by the implementation.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-required-property-removed)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const body of context.responseBodies(pair)) {
        for (const change of body.changes) {
          if (change.kind === "required-missing") context.report(locate(pair.contract, body.pointer + change.pointer), `status ${body.status}: ${change.message}`);
        }
      }
    }
  },
};
