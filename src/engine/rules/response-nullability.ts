import type { ConformanceRule } from "./rule";
import { reportResponseChanges } from "../diff/response-changes";

/**
 * The implementation returns null only where the contract allows it.
 * The comparison is the schema diff's (diff/schema-diff.ts, change kind "nullable"); this rule reports it
 * through diff/response-changes.ts.
 */
export const responseNullability: ConformanceRule = {
  kind: "conformance",
  id: "response-nullability",
  defaultSeverity: "error",
  purpose: "The implementation returns null only where the contract allows it.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-property-became-nullable)",
  check(context) {
    reportResponseChanges(context, "nullable");
  },
};
