import type { ConformanceRule } from "./rule";
import { reportResponseChanges } from "../diff/response-changes";

/**
 * Response enum values stay within the contract's values.
 * The comparison is the schema diff's (diff/schema-diff.ts, change kind "enum"); this rule reports it
 * through diff/response-changes.ts.
 */
export const responseEnum: ConformanceRule = {
  kind: "conformance",
  id: "response-enum",
  defaultSeverity: "error",
  purpose: "Response enum values stay within the contract's values.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-property-enum-value-added)",
  check(context) {
    reportResponseChanges(context, "enum");
  },
};
