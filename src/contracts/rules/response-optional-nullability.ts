import { locate, type ConformanceRule } from "./rule";

/**
 * Null the contract does not allow, in a response property that neither side requires. Kept apart from
 * response-nullability (an error) because generators such as ASP.NET Core mark every reference-typed member
 * nullable while their serializer omits nulls: for such properties "may be null" usually means "may be absent".
 */
export const responseOptionalNullability: ConformanceRule = {
  kind: "conformance",
  id: "response-optional-nullability",
  defaultSeverity: "warning",
  purpose: "Optional response properties are null only where the contract allows it.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-property-became-nullable)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const body of context.responseBodies(pair)) {
        for (const change of body.changes) {
          if (change.kind === "nullable-optional") context.report(locate(pair.contract, body.pointer + change.pointer), `status ${body.status}: ${change.message} (the property is optional on both sides)`);
        }
      }
    }
  },
};
