import type { ConformanceRule } from "./rule";
import { reportResponseChanges } from "./support/response-changes";

/**
 * Response values stay within the contract's bounds, lengths, item and property counts, multipleOf, uniqueItems
 * and patterns: a lowered minimum, a raised maximum, a dropped or changed constraint are reported, at any depth.
 * The comparison is rules/support/schema-constraints.ts; this rule reports the changes it finds in response bodies.
 */
export const responseConstraint: ConformanceRule = {
  kind: "conformance",
  id: "response-constraint",
  defaultSeverity: "error",
  purpose: "Response values stay within the contract's bounds, lengths, counts, multipleOf, uniqueItems and patterns.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-property-max-increased, response-property-max-length-unset, response-property-pattern-removed and related)",
  check(context) {
    reportResponseChanges(context, "constraint");
  },
};
