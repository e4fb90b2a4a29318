import type { ConformanceRule } from "./rule";
import { reportSchemaChanges } from "../diff/every-schema-change";
import type { SchemaChangeKind } from "../diff/schema-change";

const KINDS: ReadonlySet<SchemaChangeKind> = new Set(["alternative-removed", "alternative-added", "discriminator"]);

/**
 * oneOf/anyOf alternatives and discriminators, compared by the values each side accepts: in a request no contract
 * alternative is refused, in a response no alternative the contract does not allow is added, and the
 * discriminator's propertyName and mapping stay. The matching logic lives in diff/composition.ts; this
 * rule reports its findings in parameters, bodies and response headers.
 */
export const schemaAlternatives: ConformanceRule = {
  kind: "conformance",
  id: "schema-alternatives",
  defaultSeverity: "error",
  purpose:
    "oneOf/anyOf alternatives and discriminators accept what the contract allows (requests) and allow nothing more (responses).",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-body-one-of-removed, response-body-one-of-added, request-discriminator-property-name-changed)",
  check(context) {
    reportSchemaChanges(context, KINDS);
  },
};
