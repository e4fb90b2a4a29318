/**
 * Which `format` values constrain what a value may be, and which of them contain others. The logic of rule
 * schema-format.
 *
 * A format is a constraint when a validator checks it: the string formats JSON Schema defines that this
 * service's payload validation asserts (@cfworker/json-schema's list), and `int32`/`int64`, which payload
 * validation turns into ranges. Everything else is an annotation: `float` and `double` (no validator checks
 * them; they say how the implementation stores a number, and generators write `double` for every decimal),
 * `byte`, `binary`, `password` and custom formats. A difference that involves an annotation cannot change which
 * values are accepted, so it is not reported; neither is a format only one side declares (generators add
 * formats a hand-written contract leaves out, and leave out formats it writes).
 */

/** Formats whose values a validator checks. */
const CONSTRAINTS: ReadonlySet<string> = new Set([
  "int32",
  "int64",
  "date",
  "time",
  "date-time",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "uri-template",
  "url",
  "uuid",
  "regex",
  "json-pointer",
  "json-pointer-uri-fragment",
  "relative-json-pointer",
]);

/** Each constraint format's strictly wider formats: every int32 is an int64, every URL a URI, every URI a URI reference. */
const WIDER: Readonly<Record<string, readonly string[]>> = {
  int32: ["int64"],
  url: ["uri", "uri-reference"],
  uri: ["uri-reference"],
};

export function isConstraintFormat(format: string): boolean {
  return CONSTRAINTS.has(format);
}

/** Whether every value of format `inner` is a value of format `outer`. */
function within(inner: string, outer: string): boolean {
  return inner === outer || (WIDER[inner]?.includes(outer) ?? false);
}

/**
 * What breaks when the contract's format is `contract` and the implementation's `snapshot`, or undefined when
 * nothing can: in a request the implementation must accept every value of the contract's format, in a
 * response it must return only values of it.
 */
export function formatChange(
  contract: string | undefined,
  snapshot: string | undefined,
  direction: "request" | "response",
): string | undefined {
  if (contract === undefined || snapshot === undefined || contract === snapshot) return undefined;
  if (!isConstraintFormat(contract) || !isConstraintFormat(snapshot)) return undefined;
  const difference = `format is "${contract}" in the contract but "${snapshot}" in the implementation`;
  if (direction === "request")
    return within(contract, snapshot) ? undefined : `${difference}, so it refuses values the contract allows`;
  return within(snapshot, contract) ? undefined : `${difference}, so it may return values the contract does not allow`;
}

/**
 * A string format the implementation adds to a path, query or header parameter whose values the contract leaves
 * free (a string, or no type, with no format and no enum): the implementation then refuses values the contract
 * lets clients send ("abc" for a uuid). Integer formats are left out: generators write int32/int64 on every
 * integer, and "format only one side declares" is otherwise not a finding (see the top of this file).
 */
export function parameterFormatAdded(
  contract: {
    format: string | undefined;
    types: ReadonlySet<string> | undefined;
    enumValues: readonly unknown[] | undefined;
  },
  snapshot: { format: string | undefined },
): string | undefined {
  if (contract.format !== undefined || contract.enumValues !== undefined || snapshot.format === undefined)
    return undefined;
  if (!isConstraintFormat(snapshot.format) || snapshot.format === "int32" || snapshot.format === "int64")
    return undefined;
  if (contract.types !== undefined && !contract.types.has("string")) return undefined;
  return `the implementation sets format "${snapshot.format}", which the contract leaves free, so it refuses values the contract allows`;
}
