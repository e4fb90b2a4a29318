import { locate, type ConformanceRule } from "./rule";

/**
 * The implementation keeps a request media type the contract types but declares no schema for it (or `{}`).
 * Accepting any body refuses nothing a client sends, so this is not a break; but the description no longer says
 * what the implementation reads, and nothing checks it against the contract: a warning, so the gap is seen.
 * The pairs come from the engine (BodyPair.snapshotUntyped, decided by diff/untyped-schema.ts).
 */
export const requestBodySchemaMissing: ConformanceRule = {
  kind: "conformance",
  id: "request-body-schema-missing",
  defaultSeverity: "warning",
  purpose:
    "A request media type the contract gives a schema has a schema that constrains the body in the implementation too.",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#media-type-object (request-body-schema-removed)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const body of context.requestBodies(pair)) {
        if (!body.snapshotUntyped) continue;
        context.report(
          locate(pair.contract, body.pointer),
          `the implementation declares ${body.snapshotMediaType} without a schema that constrains it, where the contract gives one, so its description no longer says which bodies it reads`,
        );
      }
    }
  },
};
