import { locate, type ConformanceRule } from "./rule";

/** A property the contract requires in a response is required by the implementation too (when it declares required properties at all). */
export const responsePropertyOptional: ConformanceRule = {
  kind: "conformance",
  id: "response-property-optional",
  defaultSeverity: "warning",
  purpose: "A property the contract requires in a response is required by the implementation too (when it declares required properties at all).",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-required-property-became-not-required)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const body of context.responseBodies(pair)) {
        for (const change of body.changes) {
          if (change.kind === "required-optional") context.report(locate(pair.contract, body.pointer + change.pointer), `status ${body.status}: ${change.message}`);
        }
      }
    }
  },
};
