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
 * writeOnly property is not required and must not appear (and in a request the same holds for readOnly), also
 * when the flag sits in an allOf member of the property or the `required` list in another allOf member of the
 * object (the verdict reads the flags the same way, normalize-schema.ts propertyFlag). 3.0 `nullable: true`
 * adds null to an `enum` too, as the verdict reads it (see normalize-schema.ts).
 *
 * OpenAPI 3.1 references are read as JSON Schema 2020-12 reads them, through the document's resolver: `$id`
 * bases, `$anchor`s, relative and URN references inside the document (schema-resources.ts); `$dynamicRef` is
 * followed with its dynamic scope (the outermost resource entered that declares the anchor wins), and an
 * unresolvable one refuses the conversion by name. Data (`enum`,
 * `const`, `default`, examples) is copied as data; property names such as `__proto__` stay own properties.
 */
import { isRecord, refTokens, valueAt } from "../normalize/normalize-pointer";
import { propertyFlag } from "../normalize/normalize-schema";
import { RefResolver } from "../normalize/ref-resolver";
import type { Direction } from "../diff/schema-change";
import { fragmentOf, type SchemaResources } from "../normalize/schema-resources";

export const WRITE_ONLY_MARK = "x-arbiter-forbidden-by-direction";

const PLAIN_KEYWORDS = [
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired",
  "format",
] as const;
const SCHEMA_KEYWORDS = [
  "items",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
] as const;
const SCHEMA_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "dependentSchemas"] as const;

const INT_RANGES: Record<string, [number, number]> = {
  int32: [-2147483648, 2147483647],
  // Doubles cannot hold 2^63 - 1 exactly; the bound is as precise as JSON numbers in JavaScript are.
  int64: [-(2 ** 63), 2 ** 63],
};

export class SchemaConversionError extends Error {
  override readonly name = "SchemaConversionError";
}

export interface ConvertedSchema {
  schema: Record<string, unknown>;
  /** How many distinct referenced schemas were copied into $defs. */
  definitions: number;
}

export function convertToJsonSchema(
  root: unknown,
  raw: unknown,
  version: string,
  direction: Direction,
  resolver: RefResolver = new RefResolver(root),
): ConvertedSchema {
  const converter = new Converter(resolver, version === "3.0", direction);
  const schema = converter.convert(raw, 0, undefined, converter.initialScope());
  const result = typeof schema === "boolean" ? (schema ? {} : { not: {} }) : schema;
  if (converter.defs.size > 0)
    result.$defs = Object.fromEntries([...converter.defs.values()].map((entry) => [entry.name, entry.schema]));
  return { schema: result, definitions: converter.defs.size };
}

/**
 * Where a schema is converted, for 3.1 documents that use schema resources: the base URI in effect and the
 * dynamic scope (the resources entered on the way, outermost first), which a `$dynamicRef` consults.
 */
interface Scope {
  base: string;
  resources: readonly string[];
}

function enter(scope: Scope, base: string): Scope {
  return { base, resources: scope.resources.includes(base) ? scope.resources : [...scope.resources, base] };
}

interface Definition {
  name: string;
  schema: Record<string, unknown> | boolean;
}

const MAX_SCHEMA_DEPTH = 128;
const NO_NAMES: readonly string[] = Object.freeze([]);
/** Forbidden own property names per schema object (a document's objects, so the answer never changes) and direction. */
const FORBIDDEN_BY_DIRECTION: Record<Direction, WeakMap<object, readonly string[]>> = {
  request: new WeakMap(),
  response: new WeakMap(),
};

class Converter {
  readonly defs = new Map<string, Definition>();

  private readonly identifiers: SchemaResources | null;

  constructor(
    private readonly resolver: RefResolver,
    private readonly openApi30: boolean,
    private readonly direction: Direction,
  ) {
    this.identifiers = openApi30 ? null : resolver.schemaResources();
  }

  initialScope(): Scope | undefined {
    const ids = this.identifiers;
    return ids ? { base: ids.documentBase, resources: [ids.documentBase] } : undefined;
  }

  /**
   * The $defs name for the schema `ref` (an in-document pointer) names. `drop`: required names an enclosing
   * allOf forbids in this direction; a target converted without them is another definition.
   */
  private reference(ref: string, drop: ReadonlySet<string> | undefined, from?: Scope): string {
    const tokens = refTokens(ref);
    // One step, not the resolver's chain: a 3.1 target that is a `$ref` with siblings keeps its siblings.
    const value = tokens ? valueAt(this.resolver.root, tokens) : undefined;
    if (!tokens || value === undefined) {
      const failed = this.resolver.resolveRef(ref);
      throw new SchemaConversionError(failed.ok ? `$ref "${ref}" does not resolve` : failed.reason);
    }
    const target = { value, tokens };
    const scope = this.targetScope(tokens, value, from);
    const key =
      target.tokens.join("\u0000") + (drop ? `\u0001${[...drop].sort().join("\u0000")}` : "") + this.scopeKey(scope);
    const existing = this.defs.get(key);
    if (existing) return existing.name;
    const entry: Definition = { name: `d${this.defs.size}`, schema: {} };
    // Registered before converting the target, so a recursive schema refers to itself instead of looping.
    this.defs.set(key, entry);
    entry.schema = this.convert(target.value, 0, drop, scope);
    return entry.name;
  }

  /** The scope a reference's target is converted in: its resource entered (its own `$id`, if any, is entered by convert). */
  private targetScope(tokens: readonly string[], value: unknown, from: Scope | undefined): Scope | undefined {
    const ids = this.identifiers;
    if (!ids || !from) return undefined;
    const base = ids.baseAt(tokens);
    return isRecord(value) && typeof value.$id === "string" ? { base, resources: from.resources } : enter(from, base);
  }

  /** The part of a dynamic scope that can change a `$dynamicRef`'s target: the resources declaring dynamic anchors. */
  private scopeKey(scope: Scope | undefined): string {
    const ids = this.identifiers;
    if (!ids || !scope) return "";
    const relevant = scope.resources.filter((base) => ids.declaresDynamicAnchors(base));
    return relevant.length === 0 ? "" : `\u0002${relevant.join("\u0000")}`;
  }

  /** The pointer a `$dynamicRef` resolves to in `scope`: the outermost resource declaring its anchor, else its initial target. */
  private dynamicTarget(ref: string, anchor: string | undefined, scope: Scope | undefined): string {
    const ids = this.identifiers;
    if (!ids || !scope || anchor === undefined) return ref;
    for (const base of scope.resources) {
      const tokens = ids.dynamicAnchorOf(base, anchor);
      if (tokens) return fragmentOf(tokens);
    }
    return ref;
  }

  private resolved(raw: unknown): unknown {
    if (!isRecord(raw) || typeof raw.$ref !== "string") return raw;
    const target = this.resolver.resolveAt(raw);
    return target.ok ? target.value : undefined;
  }

  private get absentFlag(): "readOnly" | "writeOnly" {
    return this.direction === "response" ? "writeOnly" : "readOnly";
  }

  /** Whether a property schema is forbidden in this direction (writeOnly in responses, readOnly in requests). */
  private forbidden(raw: unknown): boolean {
    return propertyFlag(raw, this.absentFlag, this.resolver);
  }

  /** The names of this object's own properties that are forbidden here, read once per schema object and direction. */
  private ownForbidden(raw: Record<string, unknown>): readonly string[] {
    const cache = FORBIDDEN_BY_DIRECTION[this.direction];
    let names = cache.get(raw);
    if (names === undefined) {
      const found: string[] = [];
      if (isRecord(raw.properties)) {
        for (const [name, member] of Object.entries(raw.properties)) if (this.forbidden(member)) found.push(name);
      }
      names = found.length === 0 ? NO_NAMES : found;
      cache.set(raw, names);
    }
    return names;
  }

  /** Property names this object (its own properties, its allOf members' and a 3.1 `$ref` target's) forbids here. */
  private forbiddenNames(raw: Record<string, unknown>, into: Set<string>, depth: number): void {
    if (depth > 16) return;
    for (const name of this.ownForbidden(raw)) into.add(name);
    if (!Array.isArray(raw.allOf) && (typeof raw.$ref !== "string" || this.openApi30 || depth === 0)) return;
    const parts: unknown[] = Array.isArray(raw.allOf) ? [...raw.allOf] : [];
    if (typeof raw.$ref === "string" && !this.openApi30 && depth > 0) parts.push(raw);
    for (const part of parts) {
      const target = this.resolved(part);
      if (isRecord(target) && target !== raw) this.forbiddenNames(target, into, depth + 1);
    }
  }

  convert(raw: unknown, depth: number, drop?: ReadonlySet<string>, scope?: Scope): Record<string, unknown> | boolean {
    if (typeof raw === "boolean") return raw;
    if (!isRecord(raw)) return {};
    if (depth > MAX_SCHEMA_DEPTH)
      throw new SchemaConversionError(`the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
    const here =
      scope && this.identifiers && typeof raw.$id === "string"
        ? enter(scope, this.identifiers.ownBase(raw, scope.base))
        : scope;
    const dynamic = this.openApi30 ? undefined : this.resolver.dynamicRefOf(raw);
    if (dynamic !== undefined && !dynamic.ok) throw new SchemaConversionError(dynamic.reason);
    const dynamicRef = dynamic?.ok
      ? { $ref: `#/$defs/${this.reference(this.dynamicTarget(dynamic.ref, dynamic.anchor, here), drop, here)}` }
      : undefined;
    if (typeof raw.$ref === "string") {
      const ref = { $ref: `#/$defs/${this.reference(this.resolver.refOf(raw), drop, here)}` };
      // 3.0: "sibling values alongside a $ref SHALL be ignored". 3.1: they apply alongside the reference.
      if (this.openApi30) return ref;
      const siblings = this.convertKeywords(raw, depth, drop, here);
      if (dynamicRef) siblings.allOf = [...((siblings.allOf as unknown[] | undefined) ?? []), dynamicRef];
      return Object.keys(siblings).length === 0 ? ref : { ...siblings, ...ref };
    }
    const out = this.convertKeywords(raw, depth, drop, here);
    if (dynamicRef) out.allOf = [...((out.allOf as unknown[] | undefined) ?? []), dynamicRef];
    return out;
  }

  private convertKeywords(
    raw: Record<string, unknown>,
    depth: number,
    inheritedDrop: ReadonlySet<string> | undefined,
    scope: Scope | undefined,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const forbiddenHere = new Set<string>(inheritedDrop);
    this.forbiddenNames(raw, forbiddenHere, 0);
    const drop = forbiddenHere.size > 0 ? forbiddenHere : undefined;
    for (const keyword of PLAIN_KEYWORDS) {
      if (raw[keyword] !== undefined) out[keyword] = structuredCloneData(raw[keyword]);
    }
    for (const keyword of SCHEMA_KEYWORDS) {
      const value = raw[keyword];
      if (value === undefined) continue;
      if (keyword === "items" && Array.isArray(value))
        out.prefixItems = value.map((item) => this.convert(item, depth + 1, undefined, scope));
      else out[keyword] = this.convert(value, depth + 1, undefined, scope);
    }
    for (const keyword of SCHEMA_LIST_KEYWORDS) {
      const value = raw[keyword];
      if (Array.isArray(value))
        out[keyword] = value.map((member) =>
          this.convert(member, depth + 1, keyword === "allOf" ? drop : undefined, scope),
        );
    }
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      const value = raw[keyword];
      if (!isRecord(value)) continue;
      const map: Record<string, unknown> = {};
      for (const [name, member] of Object.entries(value))
        setOwn(map, name, this.convert(member, depth + 1, undefined, scope));
      out[keyword] = map;
    }
    this.applyDirection(raw, out, drop);
    if (this.openApi30) this.applyOpenApi30(raw, out);
    applyIntegerRange(out);
    return out;
  }

  private applyDirection(
    raw: Record<string, unknown>,
    out: Record<string, unknown>,
    drop: ReadonlySet<string> | undefined,
  ): void {
    if (drop && Array.isArray(out.required)) out.required = out.required.filter((name) => !drop.has(String(name)));
    if (!isRecord(raw.properties) || !isRecord(out.properties)) return;
    const properties = out.properties as Record<string, unknown>;
    for (const name of this.ownForbidden(raw))
      setOwn(properties, name, { not: {}, [WRITE_ONLY_MARK]: this.absentFlag });
  }

  private applyOpenApi30(raw: Record<string, unknown>, out: Record<string, unknown>): void {
    // Boolean exclusive bounds (JSON Schema draft 4 style) become numeric ones.
    for (const [exclusive, bound] of [
      ["exclusiveMinimum", "minimum"],
      ["exclusiveMaximum", "maximum"],
    ] as const) {
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

/** Sets `name` as an own, enumerable property, also "__proto__" (a plain assignment would set the prototype). */
function setOwn(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/** Copies a data value (enum, const, required) so the validator never holds the document's own arrays. */
function structuredCloneData(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  return JSON.parse(JSON.stringify(value));
}
