import type { ConformanceRule } from "./rule";
import { reportResponseChanges } from "../diff/response-changes";

/**
 * A response value the contract limits to an enum, where the implementation declares no enum at all. A warning,
 * not an error like response-enum: generators often leave enums out (a C# enum serialised as a string without
 * a converter annotation, a plain `String` field in Java), so the document may say less than the code does.
 * The comparison is the schema diff's (diff/schema-diff.ts, change kind "enum-unconstrained"); this rule
 * reports it through diff/response-changes.ts.
 */
export const responseEnumUnconstrained: ConformanceRule = {
  kind: "conformance",
  id: "response-enum-unconstrained",
  defaultSeverity: "warning",
  purpose: "Response values the contract limits to an enum are limited in the implementation too.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-property-enum-value-added)",
  check(context) {
    reportResponseChanges(context, "enum-unconstrained");
  },
};
