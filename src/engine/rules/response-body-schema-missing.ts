import { locate, type ConformanceRule } from "./rule";

/**
 * The implementation keeps a response media type the contract types but declares no schema for it (or `{}`): its
 * description then promises nothing about the body, so nothing checks that it still returns what the contract
 * says (a client reading the contract's fields may get anything). An error, as for a changed type. Pairs where
 * the contract's own schema constrains nothing are not reported: both sides promise the same nothing.
 * The pairs come from the engine (BodyPair.snapshotUntyped, decided by diff/untyped-schema.ts).
 */
export const responseBodySchemaMissing: ConformanceRule = {
  kind: "conformance",
  id: "response-body-schema-missing",
  defaultSeverity: "error",
  purpose:
    "A response media type the contract gives a schema has a schema that constrains the body in the implementation too.",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#media-type-object (response-body-schema-removed)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const body of context.responseBodies(pair)) {
        if (!body.snapshotUntyped) continue;
        context.report(
          locate(pair.contract, body.pointer),
          `status ${body.status}: the implementation declares ${body.snapshotMediaType} without a schema that constrains it, where the contract gives one, so it promises nothing about the body clients read`,
        );
      }
    }
  },
};
