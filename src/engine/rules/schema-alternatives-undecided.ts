import type { ConformanceRule } from "./rule";
import { reportSchemaChanges } from "../diff/every-schema-change";
import type { SchemaChangeKind } from "../diff/schema-change";

const KINDS: ReadonlySet<SchemaChangeKind> = new Set(["alternatives-undecided"]);

/**
 * Where the comparison of oneOf/anyOf alternatives cannot decide (anyOf against oneOf, an alternative that
 * constrains no type), it says so with the reason rather than passing in silence. The logic lives in
 * diff/composition.ts; this rule reports its undecided findings.
 */
export const schemaAlternativesUndecided: ConformanceRule = {
  kind: "conformance",
  id: "schema-alternatives-undecided",
  defaultSeverity: "warning",
  purpose: "oneOf/anyOf comparisons the engine cannot decide are reported with the reason, never passed in silence.",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#composition-and-inheritance-polymorphism",
  check(context) {
    reportSchemaChanges(context, KINDS);
  },
};
