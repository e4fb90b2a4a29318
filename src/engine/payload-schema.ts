/**
 * Turns an OpenAPI schema (3.0 or 3.1) into one self-contained JSON Schema 2020-12 document for
 * @cfworker/json-schema. Every reachable `$ref` becomes "#/$defs/dN": simple names, so component names that need
 * JSON Pointer escaping ("a/b", "a~b", "a b") resolve no matter how the validator encodes fragments, and the
 * document's own objects are never handed to the validator (it mutates what it gets). References stay
 * references, so recursive schemas work.
 *
 * OpenAPI 3.0 is read as 3.0 means it: `nullable` adds null (also to an `enum`), boolean `exclusiveMinimum` /
 * `exclusiveMaximum` modify `minimum` / `maximum`, and `$ref` siblings are ignored. In both versions
 * `format: int32` / `int64` bound the value, and `readOnly` / `writeOnly` follow the direction: in a response a
 * writeOnly property is not required and must not appear (and in a request the same holds for readOnly).
 */
import { isRecord, refTokens, valueAt } from "./normalize-pointer";
import type { Direction } from "./rules/support/schema-change";

export const WRITE_ONLY_MARK = "x-arbiter-forbidden-by-direction";

const PLAIN_KEYWORDS = [
  "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
  "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required",
  "dependentRequired", "format",
] as const;
const SCHEMA_KEYWORDS = ["items", "contains", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "propertyNames", "not", "if", "then", "else"] as const;
const SCHEMA_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "dependentSchemas"] as const;

const INT_RANGES: Record<string, [number, number]> = {
  int32: [-2147483648, 2147483647],
  // Doubles cannot hold 2^63 - 1 exactly; the bound is as precise as JSON numbers in JavaScript are.
  int64: [-9223372036854775808, 9223372036854775807],
};

export class SchemaConversionError extends Error {
  override readonly name = "SchemaConversionError";
}

export interface ConvertedSchema {
  schema: Record<string, unknown>;
  /** How many distinct referenced schemas were copied into $defs. */
  definitions: number;
}

export function convertToJsonSchema(root: unknown, raw: unknown, version: string, direction: Direction): ConvertedSchema {
  const converter = new Converter(root, version === "3.0", direction);
  const schema = converter.convert(raw, 0);
  const result = typeof schema === "boolean" ? (schema ? {} : { not: {} }) : schema;
  if (converter.defs.size > 0) result.$defs = Object.fromEntries([...converter.defs.values()].map((entry) => [entry.name, entry.schema]));
  return { schema: result, definitions: converter.defs.size };
}

interface Definition {
  name: string;
  schema: Record<string, unknown> | boolean;
}

const MAX_SCHEMA_DEPTH = 128;

class Converter {
  readonly defs = new Map<string, Definition>();

  constructor(
    private readonly root: unknown,
    private readonly openApi30: boolean,
    private readonly direction: Direction,
  ) {}

  private reference(ref: string): string {
    const tokens = refTokens(ref);
    if (!tokens) throw new SchemaConversionError(`$ref "${ref}" points outside the document`);
    const key = tokens.join("\u0000");
    const existing = this.defs.get(key);
    if (existing) return existing.name;
    const target = valueAt(this.root, tokens);
    if (target === undefined) throw new SchemaConversionError(`$ref "${ref}" does not resolve`);
    const entry: Definition = { name: `d${this.defs.size}`, schema: {} };
    // Registered before converting the target, so a recursive schema refers to itself instead of looping.
    this.defs.set(key, entry);
    entry.schema = this.convert(target, 0);
    return entry.name;
  }

  private resolved(raw: unknown): unknown {
    let current = raw;
    for (let hops = 0; hops < 32 && isRecord(current) && typeof current.$ref === "string"; hops++) {
      const tokens = refTokens(current.$ref);
      current = tokens ? valueAt(this.root, tokens) : undefined;
    }
    return current;
  }

  /** Whether a property schema is forbidden in this direction (writeOnly in responses, readOnly in requests). */
  private forbidden(raw: unknown): boolean {
    const flag = this.direction === "response" ? "writeOnly" : "readOnly";
    if (isRecord(raw) && !this.openApi30 && raw[flag] === true) return true;
    const target = this.resolved(raw);
    return isRecord(target) && target[flag] === true;
  }

  convert(raw: unknown, depth: number): Record<string, unknown> | boolean {
    if (typeof raw === "boolean") return raw;
    if (!isRecord(raw)) return {};
    if (depth > MAX_SCHEMA_DEPTH) throw new SchemaConversionError(`the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
    if (typeof raw.$ref === "string") {
      const ref = { $ref: `#/$defs/${this.reference(raw.$ref)}` };
      // 3.0: "sibling values alongside a $ref SHALL be ignored". 3.1: they apply alongside the reference.
      if (this.openApi30) return ref;
      const siblings = this.convertKeywords(raw, depth);
      return Object.keys(siblings).length === 0 ? ref : { ...siblings, ...ref };
    }
    return this.convertKeywords(raw, depth);
  }

  private convertKeywords(raw: Record<string, unknown>, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const keyword of PLAIN_KEYWORDS) {
      if (raw[keyword] !== undefined) out[keyword] = structuredCloneData(raw[keyword]);
    }
    for (const keyword of SCHEMA_KEYWORDS) {
      const value = raw[keyword];
      if (value === undefined) continue;
      if (keyword === "items" && Array.isArray(value)) out.prefixItems = value.map((item) => this.convert(item, depth + 1));
      else out[keyword] = this.convert(value, depth + 1);
    }
    for (const keyword of SCHEMA_LIST_KEYWORDS) {
      const value = raw[keyword];
      if (Array.isArray(value)) out[keyword] = value.map((member) => this.convert(member, depth + 1));
    }
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      const value = raw[keyword];
      if (!isRecord(value)) continue;
      const map: Record<string, unknown> = {};
      for (const [name, member] of Object.entries(value)) map[name] = this.convert(member, depth + 1);
      out[keyword] = map;
    }
    this.applyDirection(raw, out);
    if (this.openApi30) this.applyOpenApi30(raw, out);
    applyIntegerRange(out);
    return out;
  }

  private applyDirection(raw: Record<string, unknown>, out: Record<string, unknown>): void {
    if (!isRecord(raw.properties) || !isRecord(out.properties)) return;
    const forbiddenNames = Object.entries(raw.properties).filter(([, member]) => this.forbidden(member)).map(([name]) => name);
    if (forbiddenNames.length === 0) return;
    const properties = out.properties as Record<string, unknown>;
    for (const name of forbiddenNames) properties[name] = { not: {}, [WRITE_ONLY_MARK]: this.direction === "response" ? "writeOnly" : "readOnly" };
    if (Array.isArray(out.required)) out.required = out.required.filter((name) => !forbiddenNames.includes(String(name)));
  }

  private applyOpenApi30(raw: Record<string, unknown>, out: Record<string, unknown>): void {
    // Boolean exclusive bounds (JSON Schema draft 4 style) become numeric ones.
    for (const [exclusive, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
      if (typeof raw[exclusive] !== "boolean") continue;
      if (raw[exclusive] === true && typeof raw[bound] === "number") {
        out[exclusive] = raw[bound];
        delete out[bound];
      } else {
        delete out[exclusive];
      }
    }
    if (raw.nullable !== true) return;
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    if (typeof out.type === "string") out.type = [out.type, "null"];
    else if (Array.isArray(out.type)) {
      if (!out.type.includes("null")) out.type = [...out.type, "null"];
    } else if (Object.keys(out).length > 0) {
      // No type to extend (e.g. nullable beside allOf): null or whatever the rest allows.
      const rest = { ...out };
      for (const key of Object.keys(out)) delete out[key];
      out.anyOf = [{ type: "null" }, rest];
    }
  }
}

function applyIntegerRange(out: Record<string, unknown>): void {
  const range = typeof out.format === "string" ? INT_RANGES[out.format] : undefined;
  if (!range) return;
  const types = typeof out.type === "string" ? [out.type] : Array.isArray(out.type) ? out.type : [];
  if (!types.includes("integer") && !types.includes("number")) return;
  const [low, high] = range;
  if (typeof out.minimum !== "number" || out.minimum < low) out.minimum = low;
  if (typeof out.maximum !== "number" || out.maximum > high) out.maximum = high;
}

/** Copies a data value (enum, const, required) so the validator never holds the document's own arrays. */
function structuredCloneData(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  return JSON.parse(JSON.stringify(value));
}
