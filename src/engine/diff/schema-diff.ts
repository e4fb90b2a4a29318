/**
 * Compares a contract schema with an implementation schema in one direction and lists what differs, each with a
 * pointer relative to the schema. One diff feeds several rules (type, format, enum, nullability, value
 * constraints, required properties), so the traversal is shared; keyword-level logic that has a rule of its own
 * lives beside this file (format-lattice.ts, schema-constraints.ts). Results are memoised per pair of resolved
 * schema objects, which makes a component referenced by hundreds of operations cost one comparison, and ends
 * recursion for recursive schemas.
 *
 * Direction "response": the implementation produces, clients read; everything it may send must be allowed by the
 * contract. Direction "request": clients send, the implementation reads; everything the contract allows must be
 * accepted. readOnly properties exist only in responses and writeOnly ones only in requests.
 */
import { escapeToken } from "../normalize/normalize-pointer";
import {
  propertyFlag,
  resolveSchema,
  viewSchema,
  type SchemaReader,
  type SchemaView,
} from "../normalize/normalize-schema";
import { additionalPropertiesChanges } from "./additional-properties";
import { BLOCKING_COMPOSITION_CHANGES, compareComposition, type CompositionHost } from "./composition";
import { formatChange } from "./format-lattice";
import { ProvisionalMemo } from "./provisional-memo";
import { constraintChanges } from "./schema-constraints";
import { StructuralIdentity } from "./structural-identity";
import type { Direction, SchemaChange, SchemaChangeKind } from "./schema-change";

/**
 * Changes that stop one oneOf/anyOf alternative from covering another (composition.ts). A closed object among
 * them: `additionalProperties: false` admits no value with a property it does not declare, so GitHub's
 * empty-object alternative covers no simple-user.
 */
const BLOCKING: ReadonlySet<SchemaChangeKind> = new Set([
  "type",
  "enum",
  "nullable",
  "required-missing",
  "required-added",
  "closed-object",
]);
const NONE: readonly SchemaChange[] = Object.freeze([]);
const MAX_DEPTH = 64;

/**
 * Differences one compared schema reports. Memoised pairs share their lists, but each parent copies its
 * children's: a schema whose two properties refer to the same next schema, 40 levels deep, has 2^40 paths to a
 * difference at the bottom, and listing each one ran a 2 KB upload out of memory. Past the bound, one change of
 * each kind is kept first, so every rule that the full list would fire still fires and the approval is the same.
 */
export const MAX_CHANGES_PER_SCHEMA = 100;

export class SchemaDiffer {
  /** Differences per pair of resolved schemas and direction, so a component used by many operations costs one. */
  private readonly results = new ProvisionalMemo<readonly SchemaChange[]>(NONE);
  private readonly pairIds = new WeakMap<object, number>();
  private nextId = 1;
  readonly identity: StructuralIdentity;
  private readonly composition: CompositionHost;

  constructor(
    private readonly contract: SchemaReader,
    private readonly snapshot: SchemaReader,
  ) {
    this.identity = new StructuralIdentity(contract, snapshot);
    this.composition = {
      contract,
      snapshot,
      compare: (contractSchema, snapshotSchema, direction, depth) =>
        this.compare(contractSchema, snapshotSchema, direction, depth),
      identical: (contractSchema, snapshotSchema) => this.identity.schemas(contractSchema, snapshotSchema),
      blocking: (change) => BLOCKING.has(change.kind) || BLOCKING_COMPOSITION_CHANGES.has(change.kind),
    };
  }

  diff(contractSchema: unknown, snapshotSchema: unknown, direction: Direction): readonly SchemaChange[] {
    return this.compare(contractSchema, snapshotSchema, direction, 0);
  }

  private idOf(value: object): number {
    let id = this.pairIds.get(value);
    if (id === undefined) {
      id = this.nextId++;
      this.pairIds.set(value, id);
    }
    return id;
  }

  private compare(
    contractRaw: unknown,
    snapshotRaw: unknown,
    direction: Direction,
    depth: number,
  ): readonly SchemaChange[] {
    const contractSchema = resolveSchema(contractRaw, this.contract);
    const snapshotSchema = resolveSchema(snapshotRaw, this.snapshot);
    if (
      typeof contractSchema !== "object" ||
      contractSchema === null ||
      typeof snapshotSchema !== "object" ||
      snapshotSchema === null
    )
      return NONE;
    if (depth > MAX_DEPTH) return NONE;
    // Most schemas are written the same on both sides: a structural comparison that allocates nothing settles
    // those before any semantic view is built.
    if (this.identity.schemas(contractSchema, snapshotSchema)) return NONE;
    const key = `${direction}:${this.idOf(contractSchema)}:${this.idOf(snapshotSchema)}`;
    const known = this.results.get(key);
    if (known !== undefined) return known;
    // A recursive schema reached again while it is compared: no differences assumed below the point where it
    // repeats (they are reported where it first appears).
    this.results.begin(key);
    let changes: readonly SchemaChange[] = NONE;
    try {
      changes = bounded(
        this.compareViews(
          viewSchema(contractSchema, this.contract),
          viewSchema(snapshotSchema, this.snapshot),
          direction,
          depth,
        ),
      );
    } finally {
      this.results.end(key, changes, changes.length === 0);
    }
    return changes;
  }

  private compareViews(
    contract: SchemaView,
    snapshot: SchemaView,
    direction: Direction,
    depth: number,
  ): readonly SchemaChange[] {
    if (contract.alternatives || snapshot.alternatives)
      return this.compareAlternatives(contract, snapshot, direction, depth);
    const changes: SchemaChange[] = [];
    const typeChange = compareTypes(contract, snapshot, direction);
    if (typeChange) return [typeChange];
    compareNullability(contract, snapshot, direction, changes);
    const format = formatChange(contract.format, snapshot.format, direction);
    if (format !== undefined) changes.push({ kind: "format", pointer: "", message: format });
    compareEnums(contract, snapshot, direction, changes);
    if (contract.constraints || snapshot.constraints) {
      for (const message of constraintChanges(contract, snapshot, direction))
        changes.push({ kind: "constraint", pointer: "", message });
    }
    if (contract.properties.size > 0 || snapshot.properties.size > 0)
      this.compareProperties(contract, snapshot, direction, depth, changes);
    if (contract.items !== undefined && snapshot.items !== undefined)
      this.nest(contract.items, snapshot.items, direction, depth, "/items", changes);
    if (isObject(contract.additionalProperties) && isObject(snapshot.additionalProperties)) {
      this.nest(
        contract.additionalProperties,
        snapshot.additionalProperties,
        direction,
        depth,
        "/additionalProperties",
        changes,
      );
    }
    if (contract.closed || snapshot.closed || contract.additionalProperties !== snapshot.additionalProperties) {
      additionalPropertiesChanges(this.composition, contract, snapshot, direction, changes);
    }
    return changes.length === 0 ? NONE : changes;
  }

  private nest(
    contractSchema: unknown,
    snapshotSchema: unknown,
    direction: Direction,
    depth: number,
    prefix: string,
    into: SchemaChange[],
  ): void {
    for (const change of this.compare(contractSchema, snapshotSchema, direction, depth + 1)) {
      into.push({ ...change, pointer: prefix + change.pointer });
    }
  }

  private compareProperties(
    contract: SchemaView,
    snapshot: SchemaView,
    direction: Direction,
    depth: number,
    changes: SchemaChange[],
  ): void {
    const snapshotDeclaresProperties = snapshot.properties.size > 0;
    // readOnly properties exist only in responses and writeOnly ones only in requests: in the other direction
    // they are neither required nor compared.
    const absentFlag = direction === "response" ? "writeOnly" : "readOnly";
    const contractAbsent = (name: string): boolean => {
      const raw = contract.properties.get(name);
      return raw !== undefined && propertyFlag(raw, absentFlag, this.contract.resolver);
    };
    const snapshotAbsent = (name: string): boolean => {
      const raw = snapshot.properties.get(name);
      return raw !== undefined && propertyFlag(raw, absentFlag, this.snapshot.resolver);
    };
    /** Properties already reported as absent on one side: their schemas are not compared as well. */
    const settled = new Set<string>();
    if (direction === "response") {
      for (const name of contract.required) {
        if (contractAbsent(name)) continue;
        const pointer = `/properties/${escapeToken(name)}`;
        if (!snapshot.properties.has(name)) {
          // A name both sides require without declaring it (GitHub's docker metadata requires "tags" but
          // declares "tag") is the same promise on both sides.
          if (snapshotDeclaresProperties && !snapshot.required.has(name)) {
            changes.push({
              kind: "required-missing",
              pointer,
              message: `required property "${name}" is missing from the implementation's response`,
            });
          }
        } else if (snapshotAbsent(name)) {
          settled.add(name);
          changes.push({
            kind: "required-missing",
            pointer,
            message: `required property "${name}" is writeOnly in the implementation, so its responses never include it`,
          });
        } else if (
          (snapshot.requiredDeclared || this.snapshot.writesRequired === true) &&
          !snapshot.required.has(name)
        ) {
          changes.push({
            kind: "required-optional",
            pointer,
            message: `property "${name}" is required by the contract but optional in the implementation, so it may be omitted`,
          });
        }
      }
      for (const name of snapshot.properties.keys()) {
        if (
          contract.required.has(name) ||
          !contract.properties.has(name) ||
          contractAbsent(name) ||
          !snapshotAbsent(name)
        )
          continue;
        settled.add(name);
        changes.push({
          kind: "write-only",
          pointer: `/properties/${escapeToken(name)}`,
          message: `property "${name}" is writeOnly in the implementation, so its responses no longer include it while the contract returns it`,
        });
      }
    } else {
      for (const name of snapshot.required) {
        // A readOnly property the implementation requires is required of its responses only.
        if (snapshotAbsent(name)) continue;
        const readOnlyInContract = contractAbsent(name);
        if (contract.required.has(name) && !readOnlyInContract) continue;
        changes.push({
          kind: "required-added",
          pointer: `/properties/${escapeToken(name)}`,
          message: readOnlyInContract
            ? `the implementation requires property "${name}", which the contract marks readOnly, so clients do not send it`
            : contract.properties.has(name)
              ? `the implementation requires property "${name}", which the contract makes optional`
              : `the implementation requires property "${name}", which the contract does not define`,
        });
      }
      const closed = snapshotDeclaresProperties && (snapshot.additionalProperties === undefined || snapshot.closed);
      for (const name of contract.properties.keys()) {
        if (contractAbsent(name)) continue;
        const pointer = `/properties/${escapeToken(name)}`;
        if (snapshot.properties.has(name)) {
          if (snapshotAbsent(name)) {
            settled.add(name);
            if (contract.required.has(name))
              changes.push({
                kind: "read-only",
                pointer,
                message: `the contract requires clients to send property "${name}" but the implementation marks it readOnly, so it ignores (or refuses) the value`,
              });
            else
              changes.push({
                kind: "property-missing",
                pointer,
                message: `the implementation marks property "${name}" readOnly, so it ignores the value clients send`,
              });
          }
        } else if (closed && !snapshot.required.has(name)) {
          // A property the implementation requires is one it knows, declared or not.
          changes.push({
            kind: "property-missing",
            pointer,
            message: `the implementation does not accept property "${name}" that the contract defines`,
          });
        }
      }
    }
    for (const [name, contractProperty] of contract.properties) {
      if (settled.has(name) || contractAbsent(name)) continue;
      const pointer = `/properties/${escapeToken(name)}`;
      let snapshotProperty = snapshot.properties.get(name);
      if (snapshotProperty === undefined) {
        if (!snapshot.required.has(name)) continue;
        // Required but not declared by the implementation: its value is whatever additionalProperties allows.
        if (isObject(snapshot.additionalProperties)) snapshotProperty = snapshot.additionalProperties;
        else {
          const declared = viewSchema(contractProperty, this.contract).types;
          if (direction === "response" && snapshot.additionalProperties !== false && declared && declared.size > 0) {
            changes.push({
              kind: "type",
              pointer,
              message: `the implementation requires property "${name}" but does not define it, so it may return any value where the contract says ${describeTypes(declared)}`,
            });
          }
          continue;
        }
      }
      // ASP.NET Core (and other generators) mark every C# reference-typed member nullable while the serializer
      // omits nulls; for a property neither side requires, "may be null" is told apart so it can be reported
      // with a lower severity (rule response-optional-nullability) than null in a required property.
      const optionalOnBothSides =
        direction === "response" && !contract.required.has(name) && !snapshot.required.has(name);
      for (const change of this.compare(contractProperty, snapshotProperty, direction, depth + 1)) {
        const kind =
          optionalOnBothSides && change.kind === "nullable" && change.pointer === ""
            ? "nullable-optional"
            : change.kind;
        changes.push({ ...change, kind, pointer: pointer + change.pointer });
      }
    }
  }

  /** oneOf/anyOf on either side: compared by the values each side accepts, in composition.ts. */
  private compareAlternatives(
    contract: SchemaView,
    snapshot: SchemaView,
    direction: Direction,
    depth: number,
  ): readonly SchemaChange[] {
    const changes: SchemaChange[] = [];
    compareNullability(contract, snapshot, direction, changes);
    changes.push(...compareComposition(this.composition, contract, snapshot, direction, depth));
    return changes.length === 0 ? NONE : changes;
  }
}

/** At most MAX_CHANGES_PER_SCHEMA changes, in their order: the first of each kind, then the others as they come. */
function bounded(changes: readonly SchemaChange[]): readonly SchemaChange[] {
  if (changes.length <= MAX_CHANGES_PER_SCHEMA) return changes;
  const kept = new Set<number>();
  const kinds = new Set<SchemaChangeKind>();
  changes.forEach((change, index) => {
    if (!kinds.has(change.kind)) {
      kinds.add(change.kind);
      kept.add(index);
    }
  });
  for (let index = 0; index < changes.length && kept.size < MAX_CHANGES_PER_SCHEMA; index++) kept.add(index);
  return changes.filter((_, index) => kept.has(index));
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function accepts(types: ReadonlySet<string>, type: string): boolean {
  return types.has(type) || (type === "integer" && types.has("number"));
}

function describeTypes(types: ReadonlySet<string>): string {
  return types.size === 0 ? "null" : [...types].join(" or ");
}

function compareTypes(contract: SchemaView, snapshot: SchemaView, direction: Direction): SchemaChange | undefined {
  if (!contract.types || !snapshot.types) return undefined;
  // Response: what the implementation sends must be a contract type. Request: what clients send must be accepted.
  const [produced, allowed] =
    direction === "response" ? [snapshot.types, contract.types] : [contract.types, snapshot.types];
  for (const type of produced) {
    if (!accepts(allowed, type)) {
      return {
        kind: "type",
        pointer: "",
        message: `type is ${describeTypes(contract.types)} in the contract but ${describeTypes(snapshot.types)} in the implementation`,
      };
    }
  }
  return undefined;
}

function compareNullability(
  contract: SchemaView,
  snapshot: SchemaView,
  direction: Direction,
  changes: SchemaChange[],
): void {
  if (direction === "response" && snapshot.nullable && !contract.nullable) {
    changes.push({
      kind: "nullable",
      pointer: "",
      message: "the implementation may return null where the contract does not allow null",
    });
  } else if (direction === "request" && contract.nullable && !snapshot.nullable) {
    changes.push({
      kind: "nullable",
      pointer: "",
      message: "the contract allows null here but the implementation does not accept it",
    });
  }
}

function enumKey(value: unknown): string {
  return typeof value === "string" ? `s:${value}` : JSON.stringify(value);
}

function compareEnums(contract: SchemaView, snapshot: SchemaView, direction: Direction, changes: SchemaChange[]): void {
  if (direction === "response") {
    if (!contract.enumValues) return;
    if (!snapshot.enumValues) {
      // A single allowed value (const, or 3.0's one-value enum) is a promise, not a list generators leave out.
      if (contract.enumValues.length === 1) {
        changes.push({
          kind: "enum",
          pointer: "",
          message: `the contract fixes the value to ${JSON.stringify(contract.enumValues[0])} but the implementation declares no such limit, so it may return others`,
        });
        return;
      }
      changes.push({
        kind: "enum-unconstrained",
        pointer: "",
        message: `the contract limits the values to ${JSON.stringify(contract.enumValues)} but the implementation declares no such limit, so it may return others`,
      });
      return;
    }
    const allowed = new Set(contract.enumValues.map(enumKey));
    const extra = snapshot.enumValues.filter((value) => !allowed.has(enumKey(value)));
    if (extra.length > 0) {
      changes.push({
        kind: "enum",
        pointer: "",
        message: `the implementation may return ${extra.map((value) => JSON.stringify(value)).join(", ")}, outside the contract's values ${JSON.stringify(contract.enumValues)}`,
      });
    }
  } else {
    if (!snapshot.enumValues) return;
    if (!contract.enumValues) {
      changes.push({
        kind: "enum",
        pointer: "",
        message: `the implementation only accepts ${JSON.stringify(snapshot.enumValues)} where the contract allows any value`,
      });
      return;
    }
    const accepted = new Set(snapshot.enumValues.map(enumKey));
    const refused = contract.enumValues.filter((value) => !accepted.has(enumKey(value)));
    if (refused.length > 0) {
      changes.push({
        kind: "enum",
        pointer: "",
        message: `the implementation does not accept ${refused.map((value) => JSON.stringify(value)).join(", ")}, which the contract allows`,
      });
    }
  }
}
