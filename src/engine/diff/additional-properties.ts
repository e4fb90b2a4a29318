/**
 * Closed objects and additional properties, compared in one direction. The logic of rule
 * schema-additional-properties (change kinds "closed-object" and "additional-properties").
 *
 * An object is closed when it says `additionalProperties: false` (or, in 3.1, `unevaluatedProperties: false`):
 * a strict client then refuses any property it does not declare. Otherwise its additional properties are open
 * (no keyword, `true`, or `{}`) or limited to a schema.
 *
 * Response (the implementation produces, clients read): what it may return must be allowed by the contract.
 * - contract closed: every property the implementation declares must be one the contract declares (or matches
 *   its patternProperties), and the implementation must be closed too: an open object, or an additional-properties
 *   schema, may return properties the contract forbids;
 * - contract limits additional values to a schema: the implementation removing it (or setting `true`) may return
 *   any value; a narrower or equal schema is fine, a wider one is the nested comparison's finding.
 * Request (clients send, the implementation reads): what the contract lets clients send must be accepted.
 * - the implementation closing an object the contract leaves open (or limits to a schema) refuses the extra
 *   properties clients may send; properties the contract declares and a closed implementation lacks are rule
 *   request-body-property-missing's finding;
 * - the implementation limiting additional values to a schema where the contract leaves them open may refuse
 *   values clients send.
 * The other combinations only make the implementation stricter in responses or more lenient in requests.
 */
import { escapeToken, isRecord } from "../normalize/normalize-pointer";
import { resolveSchema, viewSchema, type SchemaReader, type SchemaView } from "../normalize/normalize-schema";
import type { CompositionHost } from "./composition";
import type { Direction, SchemaChange } from "./schema-change";

type Extra = { kind: "closed" } | { kind: "open" } | { kind: "schema"; schema: unknown };

function constrainsNothing(schema: unknown, reader: SchemaReader): boolean {
  const resolved = resolveSchema(schema, reader);
  if (resolved === true) return true;
  if (!isRecord(resolved)) return false;
  const view = viewSchema(resolved, reader);
  return (
    !view.types &&
    !view.nullable &&
    view.properties.size === 0 &&
    view.items === undefined &&
    !view.enumValues &&
    !view.alternatives &&
    !view.constraints &&
    view.format === undefined &&
    !view.closed &&
    view.additionalProperties === undefined
  );
}

function extraOf(view: SchemaView, reader: SchemaReader): Extra {
  if (view.closed) return { kind: "closed" };
  const additional = view.additionalProperties;
  if (additional === undefined || additional === true || constrainsNothing(additional, reader)) return { kind: "open" };
  return { kind: "schema", schema: additional };
}

/** Whether the closed contract lets property `name` through by one of its patternProperties. */
function matchesPattern(view: SchemaView, name: string): boolean {
  const patterns = view.source?.patternProperties;
  if (!isRecord(patterns)) return false;
  return Object.keys(patterns).some((pattern) => {
    try {
      return new RegExp(pattern, "u").test(name);
    } catch {
      return false;
    }
  });
}

function closedKeyword(view: SchemaView): string {
  return view.source?.additionalProperties === false ? "additionalProperties: false" : "unevaluatedProperties: false";
}

export function additionalPropertiesChanges(
  host: CompositionHost,
  contract: SchemaView,
  snapshot: SchemaView,
  direction: Direction,
  into: SchemaChange[],
): void {
  const contractExtra = extraOf(contract, host.contract);
  const snapshotExtra = extraOf(snapshot, host.snapshot);
  if (direction === "response") {
    if (contractExtra.kind === "closed") {
      for (const [name, raw] of snapshot.properties) {
        if (contract.properties.has(name) || matchesPattern(contract, name) || isWriteOnly(raw, host.snapshot))
          continue;
        into.push({
          kind: "closed-object",
          pointer: `/properties/${escapeToken(name)}`,
          message: `the contract's object is closed (${closedKeyword(contract)}) but the implementation returns property "${name}", which clients that enforce the contract refuse`,
        });
      }
      if (snapshotExtra.kind === "open") {
        into.push({
          kind: "additional-properties",
          pointer: "",
          message: `the contract's object is closed (${closedKeyword(contract)}) but the implementation's is open, so it may return properties the contract forbids`,
        });
      } else if (snapshotExtra.kind === "schema") {
        into.push({
          kind: "additional-properties",
          pointer: "/additionalProperties",
          message: `the contract's object is closed (${closedKeyword(contract)}) but the implementation allows additional properties (an additionalProperties schema), so it may return properties the contract forbids`,
        });
      }
    } else if (contractExtra.kind === "schema" && snapshotExtra.kind === "open") {
      into.push({
        kind: "additional-properties",
        pointer: "/additionalProperties",
        message:
          "the contract limits additional property values to its additionalProperties schema but the implementation sets no such limit, so it may return values the contract does not allow",
      });
    }
    return;
  }
  if (snapshotExtra.kind === "closed" && contractExtra.kind !== "closed") {
    into.push({
      kind: "closed-object",
      pointer: "",
      message: `the implementation's object is closed (${closedKeyword(snapshot)}) where the contract's is open, so it refuses properties the contract lets clients send`,
    });
  } else if (snapshotExtra.kind === "schema" && contractExtra.kind === "open") {
    into.push({
      kind: "additional-properties",
      pointer: "/additionalProperties",
      message:
        "the implementation limits additional property values to an additionalProperties schema the contract does not set, so it may refuse values the contract allows",
    });
  }
}

function isWriteOnly(raw: unknown, reader: SchemaReader): boolean {
  const resolved = resolveSchema(raw, reader);
  return isRecord(resolved) && resolved.writeOnly === true;
}
