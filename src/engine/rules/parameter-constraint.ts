import { locate, type ConformanceRule } from "./rule";
import { describeParameter, pairParameters } from "../diff/parameters";

/**
 * A parameter's value constraints in the implementation accept every value the contract allows: no raised
 * minimum or lowered maximum (3.0 boolean and 3.1 numeric exclusive bounds alike), no new or coarser multipleOf,
 * no raised minLength/minItems, lowered maxLength/maxItems, new uniqueItems, or added or changed pattern. Header,
 * query, path and cookie parameters alike. The comparison is diff/schema-constraints.ts; this rule reports
 * the changes it finds in parameters.
 *
 * Both directions, and why only one is reported: parameters are requests, so a constraint the implementation
 * loosens or drops accepts more and no client notices; one it adds or tightens refuses values clients may send.
 */
export const parameterConstraint: ConformanceRule = {
  kind: "conformance",
  id: "parameter-constraint",
  defaultSeverity: "error",
  purpose:
    "Parameter bounds, lengths, counts, multipleOf, uniqueItems and patterns accept every value the contract allows.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-parameter-max-decreased, request-parameter-min-increased, request-parameter-pattern-added and related)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const [contract, snapshot] of pairParameters(pair).both) {
        for (const change of context.schemaChanges(contract.schema, snapshot.schema, "request")) {
          if (change.kind === "constraint")
            context.report(
              locate(pair.contract, `${contract.pointer}/schema${change.pointer}`),
              `${describeParameter(contract)}: ${change.message}`,
            );
        }
      }
    }
  },
};
