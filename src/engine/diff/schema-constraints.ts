/**
 * Keyword-level value constraints compared in one direction: bounds (3.0 and 3.1 exclusive forms alike),
 * multipleOf, lengths, item and property counts, uniqueItems and patterns. The logic of rules
 * parameter-constraint, request-body-constraint and response-constraint (which differ only in where they look).
 *
 * Request: the implementation must accept every value the contract accepts, so each of its constraints must
 * allow at least the contract's values. Response: it must return only values the contract allows, so each
 * contract constraint must be met by the implementation's (a constraint the implementation drops counts).
 * A keyword is compared only where it applies: string keywords for strings, and so on (ASP.NET Core's numeric
 * `pattern` on `["integer", "string"]` is an encoding, read as no string at all by normalize-schema.ts). When the
 * side whose values flow lists them (an enum or const), those values are checked against the other side's
 * constraints instead: `enum: ["ab"]` meets `maxLength: 3` whatever keywords either side writes.
 */
import type { Bound, ValueConstraints } from "../normalize/normalize-constraints";
import type { SchemaView } from "../normalize/normalize-schema";

export type ConstraintDirection = "request" | "response";

type Family = "number" | "string" | "array" | "object";

interface TypedCheck<T> {
  family: Family;
  label: string;
  read(constraints: ValueConstraints): T | undefined;
  /** Whether every value allowed by `inner` is allowed by `outer` (undefined: no such constraint). */
  within(inner: T | undefined, outer: T | undefined, integers: boolean): boolean;
  /** Whether one listed value meets the constraint; undefined when that cannot be told (a pattern JavaScript cannot compile). */
  admits(value: unknown, constraint: T): boolean | undefined;
  show(value: T): string;
}

/** A check with its keyword's value read from the constraints, so that checks of every value type sit in one list. */
interface Check {
  family: Family;
  label: string;
  /** Whether the constraints set this keyword. */
  sets(constraints: ValueConstraints | undefined): boolean;
  within(inner: ValueConstraints | undefined, outer: ValueConstraints | undefined, integers: boolean): boolean;
  admits(value: unknown, constraints: ValueConstraints): boolean | undefined;
  show(constraints: ValueConstraints | undefined): string;
}

function define<T>(check: TypedCheck<T>): Check {
  const read = (constraints: ValueConstraints | undefined): T | undefined =>
    constraints === undefined ? undefined : check.read(constraints);
  return {
    family: check.family,
    label: check.label,
    sets: (constraints) => read(constraints) !== undefined,
    within: (inner, outer, integers) => check.within(read(inner), read(outer), integers),
    admits: (value, constraints) => {
      const limit = read(constraints);
      return limit === undefined || check.admits(value, limit);
    },
    show: (constraints) => {
      const limit = read(constraints);
      return limit === undefined ? "(none)" : check.show(limit);
    },
  };
}

/** An integer-only bound as the inclusive integer it means: `> 0` is `>= 1`, `<= 9.5` is `<= 9`. */
function inclusive(bound: Bound, lower: boolean, integers: boolean): Bound {
  if (!integers) return bound;
  if (lower) return { value: bound.exclusive ? Math.floor(bound.value) + 1 : Math.ceil(bound.value), exclusive: false };
  return { value: bound.exclusive ? Math.ceil(bound.value) - 1 : Math.floor(bound.value), exclusive: false };
}

function boundWithin(lower: boolean) {
  return (inner: Bound | undefined, outer: Bound | undefined, integers: boolean): boolean => {
    if (!outer) return true;
    if (!inner) return false;
    const a = inclusive(inner, lower, integers);
    const b = inclusive(outer, lower, integers);
    if (a.value !== b.value) return lower ? a.value > b.value : a.value < b.value;
    return a.exclusive || !b.exclusive;
  };
}

function boundAdmits(lower: boolean) {
  return (value: unknown, bound: Bound): boolean => {
    if (typeof value !== "number") return true;
    if (value === bound.value) return !bound.exclusive;
    return lower ? value > bound.value : value < bound.value;
  };
}

function isMultiple(value: number, of: number): boolean {
  const ratio = value / of;
  return Math.abs(ratio - Math.round(ratio)) < 1e-9 * Math.max(1, Math.abs(ratio));
}

function minWithin(inner: number | undefined, outer: number | undefined): boolean {
  return outer === undefined || outer === 0 || (inner !== undefined && inner >= outer);
}

function maxWithin(inner: number | undefined, outer: number | undefined): boolean {
  return outer === undefined || (inner !== undefined && inner <= outer);
}

function codePoints(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

/** The size a count keyword of `family` measures, or undefined for a value it does not apply to. */
function sizeOf(value: unknown, family: Family): number | undefined {
  if (family === "string") return typeof value === "string" ? codePoints(value) : undefined;
  if (family === "array") return Array.isArray(value) ? value.length : undefined;
  return typeof value === "object" && value !== null && !Array.isArray(value) ? Object.keys(value).length : undefined;
}

function countCheck(
  family: Family,
  label: string,
  read: (c: ValueConstraints) => number | undefined,
  lower: boolean,
): Check {
  return define<number>({
    family,
    label,
    read,
    within: lower ? minWithin : maxWithin,
    admits: (value, limit) => {
      const size = sizeOf(value, family);
      return size === undefined || (lower ? size >= limit : size <= limit);
    },
    show: String,
  });
}

const showBound =
  (lower: boolean) =>
  (bound: Bound): string =>
    `${lower ? ">" : "<"}${bound.exclusive ? "" : "="} ${bound.value}`;

const CHECKS: readonly Check[] = [
  define<Bound>({
    family: "number",
    label: "the lower bound",
    read: (c) => c.minimum,
    within: boundWithin(true),
    admits: boundAdmits(true),
    show: showBound(true),
  }),
  define<Bound>({
    family: "number",
    label: "the upper bound",
    read: (c) => c.maximum,
    within: boundWithin(false),
    admits: boundAdmits(false),
    show: showBound(false),
  }),
  define<number>({
    family: "number",
    label: "multipleOf",
    read: (c) => c.multipleOf,
    within: (inner, outer, integers) =>
      outer === undefined || (integers && outer === 1) || (inner !== undefined && isMultiple(inner, outer)),
    admits: (value, of) => typeof value !== "number" || isMultiple(value, of),
    show: String,
  }),
  countCheck("string", "minLength", (c) => c.minLength, true),
  countCheck("string", "maxLength", (c) => c.maxLength, false),
  define<readonly string[]>({
    family: "string",
    label: "pattern",
    read: (c) => (c.patterns.length > 0 ? c.patterns : undefined),
    // Whether one regular expression matches less than another is not decidable here: only the same patterns are.
    within: (inner, outer) =>
      outer === undefined || (inner !== undefined && outer.every((pattern) => inner.includes(pattern))),
    admits: (value, patterns) => {
      if (typeof value !== "string") return true;
      try {
        return patterns.every((pattern) => new RegExp(pattern, "u").test(value));
      } catch {
        return undefined;
      }
    },
    show: (patterns) => patterns.map((pattern) => JSON.stringify(pattern)).join(" and "),
  }),
  countCheck("array", "minItems", (c) => c.minItems, true),
  countCheck("array", "maxItems", (c) => c.maxItems, false),
  define<true>({
    family: "array",
    label: "uniqueItems",
    read: (c) => (c.uniqueItems ? true : undefined),
    within: (inner, outer) => outer === undefined || inner === true,
    admits: (value) =>
      !Array.isArray(value) || new Set(value.map((item) => JSON.stringify(item))).size === value.length,
    show: () => "true",
  }),
  countCheck("object", "minProperties", (c) => c.minProperties, true),
  countCheck("object", "maxProperties", (c) => c.maxProperties, false),
];

function applies(types: ReadonlySet<string> | undefined, family: Family): boolean {
  if (!types) return true;
  return family === "number" ? types.has("number") || types.has("integer") : types.has(family);
}

function message(
  check: Check,
  contract: ValueConstraints | undefined,
  snapshot: ValueConstraints | undefined,
  direction: ConstraintDirection,
): string {
  if (check.label === "uniqueItems") {
    return direction === "request"
      ? "the implementation requires unique items (uniqueItems), which the contract does not, so it refuses arrays with repeated items that the contract allows"
      : "the contract requires unique items (uniqueItems) but the implementation does not, so it may return arrays with repeated items";
  }
  const consequence =
    direction === "request"
      ? check.label === "pattern"
        ? "so it may refuse values the contract allows"
        : "so it refuses values the contract allows"
      : "so it may return values the contract does not allow";
  if (check.sets(contract) && check.sets(snapshot))
    return `${check.label} is ${check.show(contract)} in the contract but ${check.show(snapshot)} in the implementation, ${consequence}`;
  if (check.sets(snapshot))
    return `the implementation sets ${check.label} ${check.show(snapshot)}, which the contract does not, ${consequence}`;
  return `the contract sets ${check.label} ${check.show(contract)} but the implementation declares none, ${consequence}`;
}

function listed(values: readonly unknown[]): string {
  return values.map((value) => JSON.stringify(value)).join(", ");
}

/** One message per constraint that breaks clients in `direction`, in a fixed keyword order. */
export function constraintChanges(
  contract: SchemaView,
  snapshot: SchemaView,
  direction: ConstraintDirection,
): string[] {
  const contractConstraints = contract.constraints;
  const snapshotConstraints = snapshot.constraints;
  // Request: only the implementation's constraints can refuse; response: only the contract's can be broken.
  const binding = direction === "request" ? snapshotConstraints : contractConstraints;
  if (!binding) return [];
  // A side that lists its values is bound by that list, which the enum rules compare: its other constraints add
  // nothing, and reporting them too would report one change twice.
  if ((direction === "request" ? snapshot : contract).enumValues !== undefined) return [];
  const flowing = direction === "request" ? contract : snapshot;
  const types = flowing.types ?? (direction === "request" ? snapshot.types : contract.types);
  const integers = types !== undefined ? types.has("integer") && !types.has("number") : false;
  const changes: string[] = [];
  for (const check of CHECKS) {
    if (!applies(types, check.family)) continue;
    if (!check.sets(binding)) continue;
    if (flowing.enumValues !== undefined) {
      const keyword = check.label.replace(/^the /, "");
      const outcomes = flowing.enumValues.map((value) => check.admits(value, binding));
      if (!outcomes.includes(undefined)) {
        const outside = flowing.enumValues.filter((_, index) => outcomes[index] === false);
        if (outside.length > 0) {
          changes.push(
            direction === "request"
              ? `the implementation's ${keyword} ${check.show(binding)} refuses ${listed(outside)}, which the contract allows`
              : `the implementation may return ${listed(outside)}, outside the contract's ${keyword} ${check.show(binding)}`,
          );
        }
        continue;
      }
    }
    const fine =
      direction === "request"
        ? check.within(contractConstraints, snapshotConstraints, integers)
        : check.within(snapshotConstraints, contractConstraints, integers);
    if (!fine) changes.push(message(check, contractConstraints, snapshotConstraints, direction));
  }
  return changes;
}
