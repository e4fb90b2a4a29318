/**
 * Structural identity of OpenAPI fragments from two documents: operations, their parameters, request bodies,
 * responses and schemas. Two fragments are identical when every rule would read the same thing from both, so an
 * identical operation pair can skip the pair rules. What is ignored is only what no rule reads: annotations
 * (descriptions, summaries, examples, titles, operationIds, tags) and extensions ("x-..."); a schema's `default`
 * counts. Names are always compared: status codes in `responses` ("default" included), media types in `content`,
 * property names.
 * Anything this file does not model is compared exactly, which can only make more pairs go through the rules.
 *
 * References compare by what they point to, memoised per pair of `$ref` strings (the same text on both sides is
 * the common case: one map lookup), so a component used by hundreds of operations is compared once; cycles are
 * handled by ReferenceMemo. The walk allocates nothing per node but the key lists of each `responses` pair: on a
 * 13 MB document checked against a near-identical copy it is most of the verdict's time.
 */
import { keepLayout } from "../keep-layout";
import { isRecord } from "../normalize/normalize-pointer";
import { RefResolver } from "../normalize/ref-resolver";
import type { SchemaReader } from "../normalize/normalize-schema";
import { ReferenceMemo } from "./reference-memo";

/** How a value is compared. Object walkers (SCHEMA..SECURITY_SCHEME) follow `$ref`s; the others do not. */
const SCHEMA = 0;
const GENERIC = 1;
const RESPONSE = 2;
const PARAMETER = 3;
const REQUEST_BODY = 4;
const MEDIA_TYPE = 5;
const SECURITY_SCHEME = 6;
const OBJECT_WALKERS = 7;
const OPERATION = 7;
const RESPONSES = 8;
const CONTENT = 9;
const PARAMETER_LIST = 10;
const SECURITY_SCHEMES = 11;
const SCHEMA_MAP = 12;
const DATA = 13;
const IGNORE = 14;
/** For inOrder: the fields of an object (each compared as fieldKind says) rather than a map of names. */
const FIELDS = -1;

/**
 * How a field of an object compared with `walker` is compared. Switches rather than maps: this runs for every
 * key of both documents, and a switch over property names (internalized strings) is much cheaper than a lookup.
 */
function fieldKind(walker: number, key: string): number {
  switch (walker) {
    case SCHEMA:
      return schemaFieldKind(key);
    case GENERIC:
      return key === "$ref" ? IGNORE : GENERIC;
    case RESPONSE:
      // headers (read by the response-header rules) and links are compared exactly.
      return key === "content" ? CONTENT : key === "$ref" || key === "description" ? IGNORE : GENERIC;
    case PARAMETER:
      switch (key) {
        case "$ref":
        case "description":
        case "example":
        case "examples":
        case "deprecated":
          return IGNORE;
        case "schema":
          return SCHEMA;
        case "content":
          return CONTENT;
        default:
          // name, in, required, style, explode, allowEmptyValue, allowReserved and anything else: exactly.
          return GENERIC;
      }
    case REQUEST_BODY:
      return key === "content" ? CONTENT : key === "$ref" || key === "description" ? IGNORE : GENERIC;
    case MEDIA_TYPE:
      return key === "schema" ? SCHEMA : key === "$ref" || key === "example" || key === "examples" ? IGNORE : GENERIC;
    case SECURITY_SCHEME:
      return key === "$ref" || key === "description" ? IGNORE : GENERIC;
    default:
      // OPERATION
      switch (key) {
        case "responses":
          return RESPONSES;
        case "parameters":
          return PARAMETER_LIST;
        case "requestBody":
          return REQUEST_BODY;
        case "summary":
        case "description":
        case "externalDocs":
        case "deprecated":
        case "tags":
        case "operationId":
          return IGNORE;
        default:
          // security, callbacks, servers and anything else: exactly.
          return GENERIC;
      }
  }
}

/**
 * Schema keywords: annotations are ignored, data compared exactly, anything else as a nested schema structure.
 * Cases run in order, most frequent first (as counted in GitHub's description).
 */
function schemaFieldKind(key: string): number {
  switch (key) {
    case "type":
    case "format":
      return DATA;
    case "description":
      return IGNORE;
    case "nullable":
      return SCHEMA;
    case "properties":
      return SCHEMA_MAP;
    case "enum":
    case "required":
      return DATA;
    case "$ref":
    case "example":
    case "title":
      return IGNORE;
    case "items":
    case "allOf":
    case "oneOf":
    case "anyOf":
      return SCHEMA;
    case "summary":
    case "examples":
    case "externalDocs":
    case "$comment":
    case "xml":
    case "deprecated":
      return IGNORE;
    case "const":
    case "pattern":
    case "discriminator":
    // A parameter's default is what a client that omits it gets (rule parameter-default).
    case "default":
      return DATA;
    case "patternProperties":
    case "$defs":
    case "definitions":
    case "dependentSchemas":
      return SCHEMA_MAP;
    default:
      return SCHEMA;
  }
}

/** Extensions ("x-...") never change meaning. */
function isExtension(key: string): boolean {
  return key.charCodeAt(0) === 120 && key.charCodeAt(1) === 45;
}

/** Exact equality of JSON data. */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!sameData(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let count = 0;
  for (const key in a) {
    count++;
    const bValue = (b as Record<string, unknown>)[key];
    if (bValue === undefined || !sameData((a as Record<string, unknown>)[key], bValue)) return false;
  }
  for (const _ in b) count--;
  return count === 0;
}

/** Nesting beyond this is reported as "not identical": the rules then look at the pair themselves. */
const MAX_NESTING = 400;

export class StructuralIdentity {
  private readonly memos: ReferenceMemo[] = Array.from({ length: OBJECT_WALKERS }, () => new ReferenceMemo());
  private readonly ignoreRefSiblings: boolean;
  /** The other side's keys and values of the objects being compared, as a stack (see inOrder). */
  private readonly scratchKeys: string[] = new Array<string>(256).fill("");
  private readonly scratchValues: unknown[] = new Array<unknown>(256).fill(null);
  private top = 0;

  constructor(
    private readonly contract: SchemaReader,
    private readonly snapshot: SchemaReader,
  ) {
    // OpenAPI 3.0: a `$ref` replaces the object it is in; siblings are ignored by every reader.
    this.ignoreRefSiblings = contract.version === "3.0" && snapshot.version === "3.0";
  }

  schemas(contractSchema: unknown, snapshotSchema: unknown): boolean {
    return this.value(SCHEMA, contractSchema, snapshotSchema, 0);
  }

  operations(contractOperation: unknown, snapshotOperation: unknown): boolean {
    return this.value(OPERATION, contractOperation, snapshotOperation, 0);
  }

  /** A path item's shared `parameters`. */
  parameterLists(contractParameters: unknown, snapshotParameters: unknown): boolean {
    return this.value(PARAMETER_LIST, contractParameters, snapshotParameters, 0);
  }

  /** The document's `security` requirements. */
  securityRequirements(contractSecurity: unknown, snapshotSecurity: unknown): boolean {
    return sameData(contractSecurity, snapshotSecurity);
  }

  /** `components.securitySchemes`. */
  securitySchemes(contractSchemes: unknown, snapshotSchemes: unknown): boolean {
    return this.value(SECURITY_SCHEMES, contractSchemes, snapshotSchemes, 0);
  }

  private value(walker: number, a: unknown, b: unknown, depth: number): boolean {
    if (a === b) return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (depth > MAX_NESTING) return false;
    switch (walker) {
      case DATA:
        return sameData(a, b);
      case IGNORE:
        return true;
      case PARAMETER_LIST:
        return this.list(PARAMETER, a, b, depth);
      case RESPONSES:
        return this.responses(a, b, depth);
      case CONTENT:
        return this.map(MEDIA_TYPE, a, b, false, depth);
      case SECURITY_SCHEMES:
        return this.map(SECURITY_SCHEME, a, b, true, depth);
      case SCHEMA_MAP:
        return this.map(SCHEMA, a, b, false, depth);
      default:
        if (Array.isArray(a)) return this.list(walker, a, b, depth);
        if (Array.isArray(b)) return false;
        return this.object(walker, a as Record<string, unknown>, b as Record<string, unknown>, depth);
    }
  }

  private list(walker: number, a: unknown, b: unknown, depth: number): boolean {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) {
      const aValue = a[index];
      const bValue = b[index];
      if (aValue !== bValue && !this.value(walker, aValue, bValue, depth + 1)) return false;
    }
    return true;
  }

  /**
   * Both sides' fields in one pass when they are written in the same order (always, for documents produced by
   * the same generator): the other side's keys and values are read by its own for-in, which V8 serves from the
   * object's layout. Nothing is looked up by name, which is both faster and keeps the optimized code independent
   * of the documents' hidden classes (a lookup by name ties it to them, and a GC that frees them throws the code
   * away). Returns undefined when the orders differ: the caller then compares by name.
   */
  private inOrder(
    walker: number,
    mapOf: number,
    skipExtensions: boolean,
    a: Record<string, unknown>,
    b: Record<string, unknown>,
    depth: number,
  ): boolean | undefined {
    const keys = this.scratchKeys;
    const values = this.scratchValues;
    const base = this.top;
    let top = base;
    for (const key in b) {
      keys[top] = key;
      values[top] = b[key];
      top++;
    }
    this.top = top;
    const followsRefs = mapOf === FIELDS && walker < OBJECT_WALKERS;
    let index = base;
    let result: boolean | undefined = true;
    for (const key in a) {
      if (index === top || keys[index] !== key) {
        result = undefined;
        break;
      }
      const bValue = values[index++];
      if (followsRefs && key === "$ref") {
        const aValue = a[key];
        if (
          typeof aValue !== "string" ||
          typeof bValue !== "string" ||
          !this.referenced(walker, this.contract.resolver.refOf(a), this.snapshot.resolver.refOf(b), depth)
        ) {
          result = false;
          break;
        }
        // 3.0: the reference replaces the object; siblings (compared so far or not) mean nothing.
        if (this.ignoreRefSiblings) {
          index = top;
          break;
        }
        continue;
      }
      const kind = mapOf === FIELDS ? fieldKind(walker, key) : mapOf;
      if (kind === IGNORE || (skipExtensions && isExtension(key))) continue;
      const aValue = a[key];
      if (aValue !== bValue && !this.value(kind, aValue, bValue, depth + 1)) {
        result = false;
        break;
      }
    }
    if (result === true && index !== top) result = undefined;
    this.top = base;
    return result;
  }

  /** A map of names to `walker` values; every name counts (extensions too, unless `skipExtensions`). */
  private map(walker: number, a: unknown, b: unknown, skipExtensions: boolean, depth: number): boolean {
    if (!isRecord(a) || !isRecord(b)) return sameData(a, b);
    const inOrder = this.inOrder(walker, walker, skipExtensions, a, b, depth);
    if (inOrder !== undefined) return inOrder;
    let count = 0;
    for (const name in a) {
      if (skipExtensions && isExtension(name)) continue;
      count++;
      const bValue = b[name];
      if (bValue === undefined) return false;
      const aValue = a[name];
      if (aValue !== bValue && !this.value(walker, aValue, bValue, depth + 1)) return false;
    }
    for (const name in b) if (!skipExtensions || !isExtension(name)) count--;
    return count === 0;
  }

  /**
   * `responses`, keyed by status code. V8 keeps integer-like keys ("200", "404") as elements, which for-in
   * enumerates on a slow path (twice per pair in `map`); Object.keys lists them in one call, and a status code
   * is found by index. Same meaning as `map(RESPONSE, a, b, true, depth)`.
   */
  private responses(a: unknown, b: unknown, depth: number): boolean {
    if (!isRecord(a) || !isRecord(b)) return sameData(a, b);
    const aKeys = Object.keys(a);
    const bKeys = Object.keys(b);
    let count = 0;
    for (let index = 0; index < aKeys.length; index++) {
      const status = aKeys[index] as string;
      if (isExtension(status)) continue;
      count++;
      const bValue = b[status];
      if (bValue === undefined) return false;
      const aValue = a[status];
      if (aValue !== bValue && !this.value(RESPONSE, aValue, bValue, depth + 1)) return false;
    }
    for (let index = 0; index < bKeys.length; index++) if (!isExtension(bKeys[index] as string)) count--;
    return count === 0;
  }

  private object(walker: number, a: Record<string, unknown>, b: Record<string, unknown>, depth: number): boolean {
    return this.inOrder(walker, FIELDS, true, a, b, depth) ?? this.objectByName(walker, a, b, depth);
  }

  /** Fields written in different orders (or present on one side only). */
  private objectByName(walker: number, a: Record<string, unknown>, b: Record<string, unknown>, depth: number): boolean {
    if (walker < OBJECT_WALKERS) {
      const aRef = a.$ref;
      const bRef = b.$ref;
      if (aRef !== undefined || bRef !== undefined) {
        if (
          typeof aRef !== "string" ||
          typeof bRef !== "string" ||
          !this.referenced(walker, this.contract.resolver.refOf(a), this.snapshot.resolver.refOf(b), depth)
        )
          return false;
        if (this.ignoreRefSiblings) return true;
      }
    }
    let count = 0;
    for (const key in a) {
      const kind = fieldKind(walker, key);
      if (kind === IGNORE || isExtension(key)) continue;
      count++;
      const bValue = b[key];
      if (bValue === undefined) return false;
      const aValue = a[key];
      if (aValue !== bValue && !this.value(kind, aValue, bValue, depth + 1)) return false;
    }
    for (const key in b) if (fieldKind(walker, key) !== IGNORE && !isExtension(key)) count--;
    return count === 0;
  }

  private referenced(walker: number, aRef: string, bRef: string, depth: number): boolean {
    const memo = this.memos[walker] as ReferenceMemo;
    // A `$ref` is resolvable only when it starts with "#", so this key cannot collide with a plain one.
    const key = aRef === bRef ? aRef : `\u0000${aRef.length}:${aRef}${bRef}`;
    const known = memo.known(key);
    if (known !== undefined) return known;
    const aTarget = this.contract.resolver.resolveRef(aRef);
    const bTarget = this.snapshot.resolver.resolveRef(bRef);
    memo.begin(key);
    const same =
      aTarget.ok &&
      bTarget.ok &&
      (aTarget.value === bTarget.value || this.value(walker, aTarget.value, bTarget.value, depth + 1));
    memo.end(key, same);
    return same;
  }
}

keepLayout(
  new StructuralIdentity(
    { resolver: new RefResolver({}), version: "3.0" },
    { resolver: new RefResolver({}), version: "3.0" },
  ),
);
