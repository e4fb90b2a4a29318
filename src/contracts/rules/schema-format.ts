import { locate, type ConformanceRule } from "./rule";
import { describeParameter, pairParameters } from "./support/parameters";

/**
 * A `format` both sides declare differs (int32 vs int64, date vs date-time). A format only one side declares is
 * not reported: generators add formats a hand-written contract leaves out.
 * The comparison is the schema diff's (rules/support/schema-diff.ts, change kind "format"); this rule reports it.
 */
export const schemaFormat: ConformanceRule = {
  kind: "conformance",
  id: "schema-format",
  defaultSeverity: "warning",
  purpose: "Formats declared on both sides agree, in parameters, request bodies and response bodies.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-parameter-type-changed with format)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const [contract, snapshot] of pairParameters(pair).both) {
        for (const change of context.schemaChanges(contract.schema, snapshot.schema, "request")) {
          if (change.kind === "format") context.report(locate(pair.contract, `${contract.pointer}/schema${change.pointer}`), `${describeParameter(contract)}: ${change.message}`);
        }
      }
      for (const body of [...context.requestBodies(pair), ...context.responseBodies(pair)]) {
        for (const change of body.changes) {
          if (change.kind === "format") context.report(locate(pair.contract, body.pointer + change.pointer), change.message);
        }
      }
    }
  },
};
