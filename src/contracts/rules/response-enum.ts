import type { ConformanceRule } from "./rule";
import { reportResponseChanges } from "./support/response-changes";

/** Response enum values stay within the contract's values. */
export const responseEnum: ConformanceRule = {
  kind: "conformance",
  id: "response-enum",
  defaultSeverity: "error",
  purpose: "Response enum values stay within the contract's values.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-property-enum-value-added)",
  check(context) {
    reportResponseChanges(context, "enum");
  },
};
