import { locate, type ConformanceRule } from "./rule";
import { viewSchema } from "../normalize/normalize-schema";
import { parameterFormatAdded } from "../diff/format-lattice";
import { describeParameter, pairParameters } from "../diff/parameters";

/** Parameters sent as text the contract may leave free of a format (cookies are left to their own conventions). */
const TEXT_PARAMETERS: ReadonlySet<string> = new Set(["path", "query", "header"]);

/**
 * A `format` that constrains values (support/format-lattice.ts holds the list and the logic) is not narrower in
 * the implementation's requests (int64 -> int32, uri-reference -> uri) nor wider or different in its responses.
 * Annotation-only formats (float, double, byte, binary, password, custom ones) and formats only one side
 * declares are not reported: they cannot change which values are accepted, or generators add and drop them.
 * One exception: a string format the implementation adds to a path, query or header parameter whose values the
 * contract leaves free (parameterFormatAdded in format-lattice.ts): a client that sends "abc" where any text
 * was allowed is refused.
 * The comparison is the schema diff's (diff/schema-diff.ts, change kind "format"); this rule reports it.
 */
export const schemaFormat: ConformanceRule = {
  kind: "conformance",
  id: "schema-format",
  defaultSeverity: "error",
  purpose: "Formats that constrain values are not narrower in requests nor wider in responses (parameters and bodies).",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-parameter-type-changed with format)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const [contract, snapshot] of pairParameters(pair).both) {
        for (const change of context.schemaChanges(contract.schema, snapshot.schema, "request")) {
          if (change.kind === "format")
            context.report(
              locate(pair.contract, `${contract.pointer}/schema${change.pointer}`),
              `${describeParameter(contract)}: ${change.message}`,
            );
        }
        if (TEXT_PARAMETERS.has(contract.in) && !contract.viaContent && !snapshot.viaContent) {
          const contractView = viewSchema(contract.schema, {
            resolver: context.contract.resolver,
            version: context.contract.version,
          });
          const snapshotView = viewSchema(snapshot.schema, {
            resolver: context.snapshot.resolver,
            version: context.snapshot.version,
          });
          const added = parameterFormatAdded(contractView, snapshotView);
          if (added !== undefined)
            context.report(
              locate(pair.contract, `${contract.pointer}/schema`),
              `${describeParameter(contract)}: ${added}`,
            );
        }
      }
      for (const body of [...context.requestBodies(pair), ...context.responseBodies(pair)]) {
        for (const change of body.changes) {
          if (change.kind === "format")
            context.report(locate(pair.contract, body.pointer + change.pointer), change.message);
        }
      }
    }
  },
};
