import { locate, type ConformanceRule } from "./rule";

/** Response property types are those of the contract. */
export const responseType: ConformanceRule = {
  kind: "conformance",
  id: "response-type",
  defaultSeverity: "error",
  purpose: "Response property types are those of the contract.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-property-type-changed)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const body of context.responseBodies(pair)) {
        for (const change of body.changes) {
          if (change.kind === "type") context.report(locate(pair.contract, body.pointer + change.pointer), `status ${body.status}: ${change.message}`);
        }
      }
    }
  },
};
