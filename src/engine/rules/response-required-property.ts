import type { ConformanceRule } from "./rule";
import { reportResponseChanges } from "../diff/response-changes";

/**
 * A property the contract requires in a response is declared by the implementation.
 * The comparison is the schema diff's (diff/schema-diff.ts, change kind "required-missing"); this rule
 * reports it through diff/response-changes.ts.
 */
export const responseRequiredProperty: ConformanceRule = {
  kind: "conformance",
  id: "response-required-property",
  defaultSeverity: "error",
  purpose: "A property the contract requires in a response is declared by the implementation.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-required-property-removed)",
  check(context) {
    reportResponseChanges(context, "required-missing");
  },
};
