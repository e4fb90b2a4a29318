/**
 * Reduces @cfworker/json-schema's error list (every failing keyword, containers included) to the leaf errors a
 * developer can act on, each with a plain JSON pointer into the payload.
 */
import type { OutputUnit } from "@cfworker/json-schema";
import { PATTERN_FORMAT_PREFIX } from "./metered-validator";
import { isRecord, unescapeToken } from "../normalize/normalize-pointer";
import { WRITE_ONLY_MARK } from "./payload-schema";
import { plainSchemaMessage } from "./plain-schema-message";
import type { PayloadError } from "../types";

/** Keywords that only say "something below failed"; the errors below them are reported instead. */
const CONTAINERS = new Set([
  "$ref",
  "$recursiveRef",
  "properties",
  "patternProperties",
  "additionalProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedProperties",
  "unevaluatedItems",
  "allOf",
  "if",
  "dependentSchemas",
  "propertyNames",
]);

/** "#/items/0/a%20b" (the validator's URI fragment form) -> "/items/0/a b" (RFC 6901). */
export function instancePointer(location: string): string {
  const fragment = location.startsWith("#") ? location.slice(1) : location;
  return fragment
    .split("/")
    .map((token) => {
      try {
        return decodeURIComponent(token);
      } catch {
        return token;
      }
    })
    .join("/");
}

/** The schema object a keywordLocation names, following "$ref" steps through the root's $defs. */
function schemaAt(root: unknown, keywordLocation: string): unknown {
  const tokens = keywordLocation
    .replace(/^#/, "")
    .split("/")
    .slice(1)
    .map((token) => decodeURIComponent(token).replace(/~1/g, "/").replace(/~0/g, "~"));
  let current: unknown = root;
  for (const token of tokens) {
    if (!isRecord(current) && !Array.isArray(current)) return undefined;
    if (token === "$ref" && isRecord(current) && typeof current.$ref === "string") {
      const name = current.$ref.replace("#/$defs/", "");
      current = isRecord(root) && isRecord(root.$defs) ? root.$defs[name] : undefined;
      continue;
    }
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}

/** The payload's value at an RFC 6901 pointer (undefined when it has none there). */
function valueAt(payload: unknown, pointer: string): unknown {
  if (pointer === "" || pointer === "/") return payload;
  let current = payload;
  for (const token of pointer
    .replace(/^\//, "")
    .split("/")
    .map((t) => unescapeToken(t))) {
    if (Array.isArray(current) && /^\d+$/.test(token)) current = current[Number(token)];
    else if (isRecord(current) && Object.hasOwn(current, token)) current = current[token];
    else return undefined;
  }
  return current;
}

function describe(unit: OutputUnit, root: unknown, previous?: OutputUnit, payload?: unknown): PayloadError {
  const pointer = instancePointer(unit.instanceLocation);
  if (unit.keyword === "not") {
    const parent = schemaAt(root, unit.keywordLocation.replace(/\/not$/, ""));
    if (isRecord(parent) && typeof parent[WRITE_ONLY_MARK] === "string") {
      const flag = parent[WRITE_ONLY_MARK];
      return {
        pointer,
        keyword: flag,
        message: `property is ${flag}: it must not appear in a ${flag === "writeOnly" ? "response" : "request"}`,
      };
    }
  }
  if (unit.keyword === "false") {
    // A `false` schema reports no keyword path of its own; the container error just before it says which.
    const container = previous?.keyword;
    if (container === "additionalProperties" || container === "unevaluatedProperties") {
      return {
        pointer,
        keyword: container,
        message: `property "${unescapeToken(pointer.split("/").pop() ?? "")}" is not allowed here (${container}: false)`,
      };
    }
    return { pointer, keyword: "false", message: "no value is allowed here (the schema is false)" };
  }
  // Patterns run as named formats (metered-validator.ts); the name holds the contract's pattern, not shown here.
  if (unit.keyword === "format" && unit.error.includes(`"${PATTERN_FORMAT_PREFIX}`))
    return { pointer, keyword: "pattern", message: "String does not match pattern." };
  if (payload === NO_PAYLOAD) return { pointer, keyword: unit.keyword, message: unit.error };
  const schema = schemaAt(root, unit.keywordLocation.replace(/\/[^/]*$/, ""));
  return {
    pointer,
    keyword: unit.keyword,
    message: plainSchemaMessage(unit.keyword, schema, valueAt(payload, pointer), unit.error),
  };
}

/** Callers that cannot give the payload get the library's words. */
const NO_PAYLOAD = Symbol("no payload");

/**
 * The library lists a failing anyOf/oneOf right before the errors of its alternatives, which follow it as one run
 * (keyword paths below it, at or below its instance location). One pass: each run is read once, so the work is
 * linear in the number of errors (a 20-way oneOf over thousands of items yields tens of thousands).
 */
function runEnd(errors: readonly OutputUnit[], start: number, unit: OutputUnit, prefix: string): number {
  let end = start;
  while (end < errors.length) {
    const candidate = errors[end] as OutputUnit;
    const below =
      candidate.instanceLocation === unit.instanceLocation ||
      candidate.instanceLocation.startsWith(`${unit.instanceLocation}/`);
    if (!candidate.keywordLocation.startsWith(prefix) || !below) break;
    end++;
  }
  return end;
}

function collect(errors: readonly OutputUnit[], root: unknown, into: PayloadError[], payload: unknown): void {
  for (let index = 0; index < errors.length; index++) {
    const unit = errors[index] as OutputUnit;
    if (unit.keyword === "anyOf" || unit.keyword === "oneOf") {
      const prefix = `${unit.keywordLocation}/`;
      const end = runEnd(errors, index + 1, unit, prefix);
      const branches = new Map<string, OutputUnit[]>();
      for (let at = index + 1; at < end; at++) {
        const candidate = errors[at] as OutputUnit;
        const branch = candidate.keywordLocation.slice(prefix.length).split("/")[0] ?? "";
        const list = branches.get(branch) ?? [];
        list.push(candidate);
        branches.set(branch, list);
      }
      // When exactly one alternative has the right type (e.g. the non-null side of a nullable), its errors are
      // the useful ones; otherwise "matches none of the alternatives" is the leaf.
      const plausible = [...branches.values()].filter(
        (list) =>
          !list.some(
            (candidate) => candidate.keyword === "type" && candidate.instanceLocation === unit.instanceLocation,
          ),
      );
      if (plausible.length === 1 && plausible[0]) collect(plausible[0], root, into, payload);
      else into.push(describe(unit, root, undefined, payload));
      index = end - 1;
      continue;
    }
    if (CONTAINERS.has(unit.keyword)) continue;
    into.push(describe(unit, root, errors[index - 1], payload));
  }
}

/** `payload` is the validated value: the messages then name what was expected and what was received. */
export function leafErrors(
  errors: readonly OutputUnit[],
  root: unknown,
  payload: unknown = NO_PAYLOAD,
): PayloadError[] {
  const collected: PayloadError[] = [];
  collect(errors, root, collected, payload);
  const seen = new Set<string>();
  return collected.filter((error) => {
    const key = `${error.pointer}\u0000${error.keyword}\u0000${error.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
