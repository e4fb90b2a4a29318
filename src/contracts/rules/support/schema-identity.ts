/**
 * Structural identity of two schemas from two documents, ignoring annotations (descriptions, titles, examples).
 * References compare by what they point to (memoised per pair of targets; a reference cycle counts as identical
 * where it repeats). It allocates nothing per node, which is what makes checking a 13 MB document against a
 * near-identical copy cheap.
 */
import { isRecord } from "../../normalize-pointer";
import type { SchemaReader } from "../../normalize-schema";

const IGNORED = 0;
const DATA = 1;
const SCHEMA_MAP = 2;
/**
 * How a key is compared (one lookup per key on the hot path): annotations and `$ref` (handled separately) are
 * ignored; data keywords compare exactly; schema maps compare every name, annotation-like names included.
 * Anything else is compared as a nested structure.
 */
const KEY_KIND = new Map<string, number>([
  ...["$ref", "description", "title", "summary", "example", "examples", "externalDocs", "$comment", "xml", "deprecated", "default"].map((key) => [key, IGNORED] as const),
  ...["enum", "const", "required", "type", "format", "pattern", "discriminator"].map((key) => [key, DATA] as const),
  ...["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"].map((key) => [key, SCHEMA_MAP] as const),
]);

/** Extensions ("x-...") never change meaning. */
function isExtension(key: string): boolean {
  return key.charCodeAt(0) === 120 && key.charCodeAt(1) === 45;
}

function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!sameData(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  for (const key of aKeys) if (!sameData((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  return true;
}

export class IdenticalSchemas {
  private readonly known = new WeakMap<object, object>();
  private readonly inProgress = new WeakMap<object, object>();

  constructor(
    private readonly contract: SchemaReader,
    private readonly snapshot: SchemaReader,
  ) {}

  same(contractSchema: unknown, snapshotSchema: unknown): boolean {
    return this.schema(contractSchema, snapshotSchema, 0);
  }

  private schema(a: unknown, b: unknown, depth: number): boolean {
    if (a === b) return true;
    if (!isRecord(a) || !isRecord(b)) {
      if (Array.isArray(a) && Array.isArray(b)) return this.schemaList(a, b, depth);
      return typeof a === "boolean" && a === b;
    }
    if (depth > 200) return false;
    const aRef = a.$ref;
    const bRef = b.$ref;
    if (typeof aRef === "string" || typeof bRef === "string") {
      if (typeof aRef !== "string" || typeof bRef !== "string") return false;
      if (!this.referenced(aRef, bRef)) return false;
      if (this.contract.version === "3.0" && this.snapshot.version === "3.0") return true;
    }
    let aCount = 0;
    for (const key in a) {
      const kind = KEY_KIND.get(key);
      if (kind === IGNORED || isExtension(key)) continue;
      aCount++;
      const aValue = a[key];
      const bValue = b[key];
      if (bValue === undefined) return false;
      if (kind === DATA) {
        if (!sameData(aValue, bValue)) return false;
      } else if (kind === SCHEMA_MAP) {
        if (!this.schemaMap(aValue, bValue, depth)) return false;
      } else if (aValue !== bValue && !this.schema(aValue, bValue, depth + 1)) {
        return false;
      }
    }
    let bCount = 0;
    for (const key in b) if (KEY_KIND.get(key) !== IGNORED && !isExtension(key)) bCount++;
    return aCount === bCount;
  }

  private schemaList(a: unknown[], b: unknown[], depth: number): boolean {
    if (a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!this.schema(a[index], b[index], depth + 1)) return false;
    return true;
  }

  private schemaMap(a: unknown, b: unknown, depth: number): boolean {
    if (!isRecord(a) || !isRecord(b)) return sameData(a, b);
    let count = 0;
    for (const name in a) {
      count++;
      const bValue = b[name];
      if (bValue === undefined || !this.schema(a[name], bValue, depth + 1)) return false;
    }
    for (const _ in b) count--;
    return count === 0;
  }

  private referenced(aRef: string, bRef: string): boolean {
    const aTarget = this.contract.resolver.resolveRef(aRef);
    const bTarget = this.snapshot.resolver.resolveRef(bRef);
    if (!aTarget.ok || !bTarget.ok) return false;
    const a = aTarget.value;
    const b = bTarget.value;
    if (!isRecord(a) || !isRecord(b)) return this.schema(a, b, 0);
    if (this.known.get(a) === b) return true;
    // Recursive schemas: the pair is being compared further up; identical so far means identical here.
    if (this.inProgress.get(a) === b) return true;
    this.inProgress.set(a, b);
    const same = this.schema(a, b, 0);
    this.inProgress.delete(a);
    if (same) this.known.set(a, b);
    return same;
  }
}
