/**
 * The value constraints of one schema (bounds, lengths, counts, multipleOf, pattern, uniqueItems), read into one
 * representation whatever the OpenAPI version wrote: 3.0's boolean `exclusiveMinimum: true` beside `minimum: 5`
 * and 3.1's numeric `exclusiveMinimum: 5` are the same bound. The form is told by the value, not by the declared
 * version, so a 3.0 document that writes the 3.1 form (or the reverse) still means what it says.
 */

export interface Bound {
  value: number;
  /** True for exclusiveMinimum/exclusiveMaximum: the bound itself is not allowed. */
  exclusive: boolean;
}

export interface ValueConstraints {
  minimum: Bound | undefined;
  maximum: Bound | undefined;
  multipleOf: number | undefined;
  minLength: number | undefined;
  maxLength: number | undefined;
  /** Every pattern the value must match (allOf members add theirs). */
  patterns: readonly string[];
  minItems: number | undefined;
  maxItems: number | undefined;
  uniqueItems: boolean;
  minProperties: number | undefined;
  maxProperties: number | undefined;
}

function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** The stricter of two lower (`lower`) or upper bounds. */
function stricter(a: Bound | undefined, b: Bound | undefined, lower: boolean): Bound | undefined {
  if (!a) return b;
  if (!b) return a;
  if (a.value !== b.value) return a.value > b.value === lower ? a : b;
  return a.exclusive ? a : b;
}

function readBound(
  schema: Record<string, unknown>,
  inclusiveKey: "minimum" | "maximum",
  exclusiveKey: "exclusiveMinimum" | "exclusiveMaximum",
): Bound | undefined {
  const inclusive = finite(schema[inclusiveKey]);
  const exclusive = schema[exclusiveKey];
  // 3.0 (JSON Schema draft 4): a boolean that makes `minimum`/`maximum` exclusive.
  if (typeof exclusive === "boolean") return inclusive === undefined ? undefined : { value: inclusive, exclusive };
  const lower = inclusiveKey === "minimum";
  const numeric = finite(exclusive);
  return stricter(
    inclusive === undefined ? undefined : { value: inclusive, exclusive: false },
    numeric === undefined ? undefined : { value: numeric, exclusive: true },
    lower,
  );
}

/** Keywords read here: a schema with none of them (most) costs these lookups and no allocation. */
function hasAny(schema: Record<string, unknown>): boolean {
  return (
    schema.minimum !== undefined ||
    schema.maximum !== undefined ||
    schema.exclusiveMinimum !== undefined ||
    schema.exclusiveMaximum !== undefined ||
    schema.multipleOf !== undefined ||
    schema.minLength !== undefined ||
    schema.maxLength !== undefined ||
    schema.pattern !== undefined ||
    schema.minItems !== undefined ||
    schema.maxItems !== undefined ||
    schema.uniqueItems !== undefined ||
    schema.minProperties !== undefined ||
    schema.maxProperties !== undefined
  );
}

/** The schema's own constraints (not those of `$ref` targets or allOf members), or undefined when it has none. */
export function readConstraints(schema: Record<string, unknown>): ValueConstraints | undefined {
  if (!hasAny(schema)) return undefined;
  const multipleOf = finite(schema.multipleOf);
  return {
    minimum: readBound(schema, "minimum", "exclusiveMinimum"),
    maximum: readBound(schema, "maximum", "exclusiveMaximum"),
    multipleOf: multipleOf !== undefined && multipleOf > 0 ? multipleOf : undefined,
    minLength: count(schema.minLength),
    maxLength: count(schema.maxLength),
    patterns: typeof schema.pattern === "string" ? [schema.pattern] : [],
    minItems: count(schema.minItems),
    maxItems: count(schema.maxItems),
    uniqueItems: schema.uniqueItems === true,
    minProperties: count(schema.minProperties),
    maxProperties: count(schema.maxProperties),
  };
}

function larger(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}

function smaller(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/**
 * Both sets at once, as allOf means them: every bound is the stricter one. Two different multipleOf values are
 * kept as the first (their exact combination is a least common multiple that few documents need).
 */
export function mergeConstraints(
  a: ValueConstraints | undefined,
  b: ValueConstraints | undefined,
): ValueConstraints | undefined {
  if (!a) return b;
  if (!b) return a;
  return {
    minimum: stricter(a.minimum, b.minimum, true),
    maximum: stricter(a.maximum, b.maximum, false),
    multipleOf: a.multipleOf ?? b.multipleOf,
    minLength: larger(a.minLength, b.minLength),
    maxLength: smaller(a.maxLength, b.maxLength),
    patterns: [...new Set([...a.patterns, ...b.patterns])],
    minItems: larger(a.minItems, b.minItems),
    maxItems: smaller(a.maxItems, b.maxItems),
    uniqueItems: a.uniqueItems || b.uniqueItems,
    minProperties: larger(a.minProperties, b.minProperties),
    maxProperties: smaller(a.maxProperties, b.maxProperties),
  };
}
