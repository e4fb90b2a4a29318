import { locate, type ConformanceRule } from "./rule";

/**
 * The implementation's request body schema accepts every value the contract allows as far as bounds, lengths,
 * item and property counts, multipleOf, uniqueItems and patterns go, at any depth. The comparison is
 * diff/schema-constraints.ts; this rule reports the changes it finds in request bodies.
 *
 * Both directions, and why only one is reported: in a request clients send what the contract allows and the
 * implementation decides, so a constraint it loosens or drops (a lower minLength, a raised maximum, a pattern or
 * uniqueItems removed) accepts more than before: no client notices, nothing is reported. A constraint it adds or
 * tightens (a higher minLength, a new or different pattern, uniqueItems turned on) refuses values clients may
 * send: reported. Values the contract lists (enum, const) are checked one by one against the implementation.
 */
export const requestBodyConstraint: ConformanceRule = {
  kind: "conformance",
  id: "request-body-constraint",
  defaultSeverity: "error",
  purpose:
    "Request body bounds, lengths, counts, multipleOf, uniqueItems and patterns accept every value the contract allows.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-property-max-decreased, request-property-max-length-decreased, request-property-pattern-added and related)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const body of context.requestBodies(pair)) {
        for (const change of body.changes) {
          if (change.kind === "constraint")
            context.report(locate(pair.contract, body.pointer + change.pointer), change.message);
        }
      }
    }
  },
};
