/**
 * What a schema comparison reports: the direction it compares in, the kinds of change, one change. Shared by the
 * schema diff (schema-diff.ts), the composition comparison it lends itself to (composition.ts) and the rules that
 * read the changes; a module of its own so that neither comparison imports the other for a type.
 */
export type Direction = "request" | "response";

export type SchemaChangeKind =
  /** oneOf/anyOf alternatives and discriminators: see composition.ts. */
  | CompositionChangeKind
  | "type"
  /** A format that constrains values (format-lattice.ts) and is narrower (request) or wider (response). */
  | "format"
  /** A bound, length, count, multipleOf, pattern or uniqueItems that breaks clients (schema-constraints.ts). */
  | "constraint"
  | "enum"
  /** response: the contract limits the values to an enum, the implementation declares no limit. */
  | "enum-unconstrained"
  | "nullable"
  /** response: null the contract does not allow, in a property neither side requires. */
  | "nullable-optional"
  /** response: the contract requires a property the implementation does not declare. */
  | "required-missing"
  /** response: the contract requires a property the implementation declares as optional. */
  | "required-optional"
  /** request: the implementation requires a property the contract does not require. */
  | "required-added"
  /** request: the contract defines a property the implementation does not know. */
  | "property-missing"
  /**
   * A closed object (additionalProperties: false, or 3.1 unevaluatedProperties: false) meets properties the
   * other side lets through: the implementation returns properties a closed contract forbids, or closes a
   * request object the contract leaves open (additional-properties.ts).
   */
  | "closed-object"
  /** The additional-properties schema is wider (response) or narrower (request), or one side has none (additional-properties.ts). */
  | "additional-properties"
  /** response: a property the contract returns is writeOnly in the implementation, so it is no longer returned. */
  | "write-only"
  /** request: a property the contract requires clients to send is readOnly in the implementation, which ignores it. */
  | "read-only";

export interface SchemaChange {
  kind: SchemaChangeKind;
  /** JSON pointer relative to the compared schema, e.g. "/properties/total". */
  pointer: string;
  message: string;
}

export type CompositionChangeKind =
  /** request: a contract alternative no implementation alternative accepts. */
  | "alternative-removed"
  /** response: an implementation alternative no contract alternative allows. */
  | "alternative-added"
  /** the discriminator's propertyName, or a value of its mapping, differs in the breaking direction. */
  | "discriminator"
  /** the comparison cannot decide whether the alternatives cover each other; the message says why. */
  | "alternatives-undecided"
  /**
   * not a problem: an alternative with no unchanged partner that another alternative covers (response: a contract
   * alternative allows all of a new implementation alternative; request: an implementation alternative accepts all
   * of a contract one). The message names both, so the approval says why.
   */
  | "alternative-covered";
