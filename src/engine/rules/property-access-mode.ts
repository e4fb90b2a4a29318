import type { ConformanceRule } from "./rule";
import { reportSchemaChanges } from "../diff/every-schema-change";
import type { SchemaChangeKind } from "../diff/schema-change";

const KINDS: ReadonlySet<SchemaChangeKind> = new Set(["write-only", "read-only"]);

/**
 * readOnly / writeOnly transitions: a property the contract returns is not writeOnly in the implementation (it
 * would never come back), and a property the contract requires clients to send is not readOnly there (the
 * implementation would ignore it), also when the flag or the `required` list comes through allOf. A property
 * the contract requires in responses that becomes writeOnly is rule response-required-property's finding; an
 * optional request property that becomes readOnly is request-body-property-missing's (a warning: clients need
 * not send it). The comparison is the schema diff's (diff/schema-diff.ts).
 */
export const propertyAccessMode: ConformanceRule = {
  kind: "conformance",
  id: "property-access-mode",
  defaultSeverity: "error",
  purpose:
    "Properties the contract returns are not writeOnly, and properties it requires clients to send are not readOnly, in the implementation.",
  enforces:
    "https://spec.openapis.org/oas/v3.0.3.html#fixed-fields-19 (readOnly, writeOnly; response-property-became-write-only, request-property-became-read-only)",
  check(context) {
    reportSchemaChanges(context, KINDS);
  },
};
