import { locate, type ConformanceRule } from "./rule";
import { describeParameter, pairParameters } from "../diff/parameters";

const KINDS = new Set(["type", "enum", "nullable", "required-added"]);

/**
 * A parameter's schema in the implementation accepts every value the contract allows (type, enum, null, and for
 * object-valued parameters (deepObject, `content`) no property the contract leaves optional becomes required). A
 * parameter written with a style (query, path, header, cookie with `schema`) is text on the wire and never
 * carries JSON null, so nullability is compared only for parameters described by `content`.
 * The comparison is the schema diff's (diff/schema-diff.ts, change kinds type, enum, nullable, required-added);
 * parameters are paired in diff/parameters.ts. This rule reports those findings.
 */
export const parameterSchema: ConformanceRule = {
  kind: "conformance",
  id: "parameter-schema",
  defaultSeverity: "error",
  purpose: "Parameter types, enums, nullability and object properties accept every value the contract allows.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-parameter-type-changed, request-parameter-enum-value-removed, request-parameter-property-became-required)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const [contract, snapshot] of pairParameters(pair).both) {
        const carriesNull = contract.viaContent && snapshot.viaContent;
        for (const change of context.schemaChanges(contract.schema, snapshot.schema, "request")) {
          if (!KINDS.has(change.kind) || (change.kind === "nullable" && !carriesNull)) continue;
          context.report(
            locate(pair.contract, `${contract.pointer}/schema${change.pointer}`),
            `${describeParameter(contract)}: ${change.message}`,
          );
        }
      }
    }
  },
};
