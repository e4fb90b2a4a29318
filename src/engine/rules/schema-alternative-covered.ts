import type { ConformanceRule } from "./rule";
import { reportSchemaChanges } from "../diff/every-schema-change";
import type { SchemaChangeKind } from "../diff/schema-change";

const KINDS: ReadonlySet<SchemaChangeKind> = new Set(["alternative-covered"]);

/**
 * Why a oneOf/anyOf alternative without an unchanged partner passes: a new response alternative that a contract
 * alternative allows entirely (an open one, typically), or a contract request alternative that another
 * implementation alternative accepts. Info, so it explains an approval and never changes one. The matching logic
 * lives in diff/composition.ts; this rule reports its covered notes.
 */
export const schemaAlternativeCovered: ConformanceRule = {
  kind: "conformance",
  id: "schema-alternative-covered",
  defaultSeverity: "info",
  purpose:
    "A oneOf/anyOf alternative that passes because another alternative covers it is named, with the alternative that covers it.",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#composition-and-inheritance-polymorphism",
  check(context) {
    reportSchemaChanges(context, KINDS);
  },
};
