import { locate, type ConformanceRule } from "./rule";

/**
 * Every response media type family the contract declares is produced by the implementation: application/json
 * and application/problem+json are one family (so are other +json types); extra types the implementation
 * offers (ASP.NET Core's text/plain and text/json) are not reported.
 * Media types are paired by family in diff/operation-parts.ts (pairMediaTypes, with media-types.ts); this
 * rule reports the gaps.
 */
export const responseMediaType: ConformanceRule = {
  kind: "conformance",
  id: "response-media-type",
  defaultSeverity: "error",
  purpose: "The implementation produces each response media type family the contract declares.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-media-type-removed)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const gap of context.responseMediaTypeGaps(pair)) {
        const instead =
          gap.snapshotMediaTypes.length > 0
            ? `it declares ${gap.snapshotMediaTypes.join(", ")}`
            : "it declares no content";
        context.report(
          locate(pair.contract, gap.pointer),
          `status ${gap.status}: the contract returns ${gap.contractMediaType} but the implementation does not produce that media type family (${instead})`,
        );
      }
    }
  },
};
