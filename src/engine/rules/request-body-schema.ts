import { locate, type ConformanceRule } from "./rule";

const KINDS = new Set(["type", "enum", "nullable"]);

/**
 * The implementation's request body schema accepts every value the contract allows (types, enums, null).
 * The comparison is the schema diff's (diff/schema-diff.ts, change kinds type, enum, nullable); this rule
 * reports those findings.
 */
export const requestBodySchema: ConformanceRule = {
  kind: "conformance",
  id: "request-body-schema",
  defaultSeverity: "error",
  purpose: "Request body schemas accept every value the contract allows: types, enum values, null.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-property-type-changed, request-property-enum-value-removed)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const body of context.requestBodies(pair)) {
        for (const change of body.changes) {
          if (KINDS.has(change.kind))
            context.report(locate(pair.contract, body.pointer + change.pointer), change.message);
        }
      }
    }
  },
};
