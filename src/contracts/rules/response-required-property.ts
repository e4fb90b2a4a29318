import type { ConformanceRule } from "./rule";
import { reportResponseChanges } from "./support/response-changes";

/** A property the contract requires in a response is declared by the implementation. */
export const responseRequiredProperty: ConformanceRule = {
  kind: "conformance",
  id: "response-required-property",
  defaultSeverity: "error",
  purpose: "A property the contract requires in a response is declared by the implementation.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-required-property-removed)",
  check(context) {
    reportResponseChanges(context, "required-missing");
  },
};
