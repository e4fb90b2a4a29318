/**
 * The walk the response-body rules share: every schema change of one kind found in a compared pair's response
 * bodies, reported at its place inside the contract operation and prefixed with the status code. Each rule
 * names the kind it owns; the schema diff (schema-diff.ts) has already found the changes once for all of them.
 */
import { locate, type ConformanceContext } from "../rules/rule";
import type { BodyPair } from "./operation-parts";
import type { SchemaChange, SchemaChangeKind } from "./schema-change";

export interface ResponseChangeOptions {
  /** Leaves out a change the rule knows to be harmless. */
  skip?(body: BodyPair, change: SchemaChange): boolean;
  /** Appended to each message. */
  note?: string;
}

export function reportResponseChanges(
  context: ConformanceContext,
  kind: SchemaChangeKind,
  options: ResponseChangeOptions = {},
): void {
  const note = options.note ? ` ${options.note}` : "";
  for (const pair of context.comparedPairs) {
    for (const body of context.responseBodies(pair)) {
      for (const change of body.changes) {
        if (change.kind !== kind || options.skip?.(body, change)) continue;
        context.report(
          locate(pair.contract, body.pointer + change.pointer),
          `status ${body.status}: ${change.message}${note}`,
        );
      }
    }
  }
}
