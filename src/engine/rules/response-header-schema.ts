import { locate, type ConformanceRule } from "./rule";
import { pairResponseHeaders } from "../diff/response-headers";
import type { SchemaChangeKind } from "../diff/schema-change";

/** oneOf/anyOf findings in a header are schema-alternatives' (and -undecided's), like everywhere else. */
const ELSEWHERE: ReadonlySet<SchemaChangeKind> = new Set([
  "alternative-removed",
  "alternative-added",
  "discriminator",
  "alternatives-undecided",
]);

/**
 * A response header's values stay within the contract's schema: its type, constraints and nullability,
 * compared in the response direction by the schema diff (diff/schema-diff.ts holds that logic; this
 * rule reports every kind of change it finds in a header's schema, except oneOf/anyOf findings).
 */
export const responseHeaderSchema: ConformanceRule = {
  kind: "conformance",
  id: "response-header-schema",
  defaultSeverity: "error",
  purpose: "Response header values stay within the contract's schema: type, constraints, nullability.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-header-type-changed)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const header of pairResponseHeaders(context.contract, context.snapshot, pair)) {
        if (!header.snapshot || header.contract.schema === undefined || header.snapshot.schema === undefined) continue;
        for (const change of context.schemaChanges(header.contract.schema, header.snapshot.schema, "response")) {
          if (ELSEWHERE.has(change.kind)) continue;
          context.report(
            locate(pair.contract, `${header.pointer}${header.contract.schemaPointer}${change.pointer}`),
            `status ${header.status}: response header "${header.contract.name}": ${change.message}`,
          );
        }
      }
    }
  },
};
