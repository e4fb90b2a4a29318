import { locate, type ConformanceRule } from "./rule";

/**
 * Every request media type family the contract accepts is accepted by the implementation.
 * Media types are paired by family in diff/operation-parts.ts (pairMediaTypes, with media-types.ts); this
 * rule reports the gaps.
 */
export const requestBodyMediaType: ConformanceRule = {
  kind: "conformance",
  id: "request-body-media-type",
  defaultSeverity: "error",
  purpose: "The implementation accepts every request body media type (family) the contract declares.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-body-media-type-removed)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const gap of context.requestMediaTypeGaps(pair)) {
        const instead =
          gap.snapshotMediaTypes.length > 0
            ? `it accepts ${gap.snapshotMediaTypes.join(", ")}`
            : "it declares no request body";
        context.report(
          locate(pair.contract, gap.pointer),
          `the contract sends request bodies as ${gap.contractMediaType} but the implementation does not accept that media type (${instead})`,
        );
      }
    }
  },
};
