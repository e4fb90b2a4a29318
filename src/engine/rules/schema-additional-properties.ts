import type { ConformanceRule } from "./rule";
import { reportSchemaChanges } from "../diff/every-schema-change";
import type { SchemaChangeKind } from "../diff/schema-change";

const KINDS: ReadonlySet<SchemaChangeKind> = new Set(["closed-object", "additional-properties"]);

/**
 * Closed objects and additional properties: a response returns no property a closed contract object
 * (`additionalProperties: false`, 3.1 `unevaluatedProperties: false`) forbids and keeps the contract's limit on
 * additional values; a request object the contract leaves open is not closed or limited by the implementation.
 * Both sides are read even when only one declares an additionalProperties schema. The logic and its reasoning
 * per direction are in diff/additional-properties.ts; this rule reports its findings in parameters,
 * bodies and response headers.
 */
export const schemaAdditionalProperties: ConformanceRule = {
  kind: "conformance",
  id: "schema-additional-properties",
  defaultSeverity: "error",
  purpose:
    "Closed objects stay closed in responses and open objects stay open in requests; additional-property schemas are not wider in responses nor narrower in requests.",
  enforces:
    "https://json-schema.org/draft/2020-12/json-schema-core#name-additionalproperties (response-property-additional-properties-changed, request-additional-properties-closed)",
  check(context) {
    reportSchemaChanges(context, KINDS);
  },
};
