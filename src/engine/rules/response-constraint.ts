import type { ConformanceRule } from "./rule";
import { reportResponseChanges } from "../diff/response-changes";

/**
 * Response values stay within the contract's bounds, lengths, item and property counts, multipleOf, uniqueItems
 * and patterns: a lowered minimum, a raised maximum, a dropped or changed constraint are reported, at any depth.
 * The comparison is diff/schema-constraints.ts; this rule reports the changes it finds in response bodies.
 *
 * Both directions, and why only one is reported: in a response the implementation produces and clients check
 * against the contract, so a constraint the implementation tightens (a higher minLength, a lower maximum, an
 * extra pattern beside the contract's, uniqueItems added) only sends values clients already accept: no client
 * notices, nothing is reported. Loosened, dropped or replaced constraints (a lower minLength, a raised
 * maxLength, another pattern, uniqueItems dropped) may send values a client that enforces the contract refuses:
 * reported. Two different patterns are reported as possibly wider, since whether one regular expression matches
 * less than another is not decided here; values the implementation lists (enum, const) are checked one by one.
 */
export const responseConstraint: ConformanceRule = {
  kind: "conformance",
  id: "response-constraint",
  defaultSeverity: "error",
  purpose: "Response values stay within the contract's bounds, lengths, counts, multipleOf, uniqueItems and patterns.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-property-max-increased, response-property-max-length-unset, response-property-pattern-removed and related)",
  check(context) {
    reportResponseChanges(context, "constraint");
  },
};
