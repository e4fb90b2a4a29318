import type { ConformanceRule } from "./rule";
import { reportResponseChanges } from "../diff/response-changes";

/**
 * Response property types are those of the contract.
 * The comparison is the schema diff's (diff/schema-diff.ts, change kind "type"); this rule reports it
 * through diff/response-changes.ts.
 */
export const responseType: ConformanceRule = {
  kind: "conformance",
  id: "response-type",
  defaultSeverity: "error",
  purpose: "Response property types are those of the contract.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-property-type-changed)",
  check(context) {
    reportResponseChanges(context, "type");
  },
};
