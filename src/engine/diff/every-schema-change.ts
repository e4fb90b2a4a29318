/**
 * Every schema change of a compared pair, wherever a schema sits: parameters (request), request bodies,
 * response bodies and response headers. For rules whose change kinds can appear in any of them (the oneOf/anyOf
 * rules); each change comes with its location and the words that say where it is.
 */
import { locate, type ConformanceContext } from "../rules/rule";
import { describeParameter, pairParameters } from "./parameters";
import { pairResponseHeaders } from "./response-headers";
import type { SchemaChange, SchemaChangeKind } from "./schema-change";

export function reportSchemaChanges(context: ConformanceContext, kinds: ReadonlySet<SchemaChangeKind>): void {
  const report = (location: string, prefix: string, change: SchemaChange): void => {
    if (kinds.has(change.kind)) context.report(location, `${prefix}${change.message}`);
  };
  for (const pair of context.comparedPairs) {
    for (const [contract, snapshot] of pairParameters(pair).both) {
      for (const change of context.schemaChanges(contract.schema, snapshot.schema, "request")) {
        report(
          locate(pair.contract, `${contract.pointer}/schema${change.pointer}`),
          `${describeParameter(contract)}: `,
          change,
        );
      }
    }
    for (const body of context.requestBodies(pair)) {
      for (const change of body.changes) report(locate(pair.contract, body.pointer + change.pointer), "", change);
    }
    for (const body of context.responseBodies(pair)) {
      for (const change of body.changes)
        report(locate(pair.contract, body.pointer + change.pointer), `status ${body.status}: `, change);
    }
    for (const header of pairResponseHeaders(context.contract, context.snapshot, pair)) {
      if (!header.snapshot || header.contract.schema === undefined || header.snapshot.schema === undefined) continue;
      for (const change of context.schemaChanges(header.contract.schema, header.snapshot.schema, "response")) {
        report(
          locate(pair.contract, `${header.pointer}${header.contract.schemaPointer}${change.pointer}`),
          `status ${header.status}: response header "${header.contract.name}": `,
          change,
        );
      }
    }
  }
}
