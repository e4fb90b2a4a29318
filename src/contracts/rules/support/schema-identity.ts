/**
 * Structural identity of two schemas from two documents, ignoring annotations (descriptions, titles, examples).
 * References compare by what they point to (memoised per pair of targets; a reference cycle counts as identical
 * where it repeats). It allocates nothing per node, which is what makes checking a 13 MB document against a
 * near-identical copy cheap.
 */
import { isRecord } from "../../normalize-pointer";
import type { SchemaReader } from "../../normalize-schema";

const ANNOTATIONS = new Set(["description", "title", "summary", "example", "examples", "externalDocs", "$comment", "xml", "deprecated", "default"]);
/** Keywords whose value maps names to schemas: every name counts, annotation-like names included. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is data, compared exactly. */
const DATA = new Set(["enum", "const", "required", "type", "format", "pattern", "discriminator"]);

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
      if (key === "$ref" || ANNOTATIONS.has(key) || key.startsWith("x-")) continue;
      aCount++;
      const aValue = a[key];
      const bValue = b[key];
      if (bValue === undefined) return false;
      if (DATA.has(key)) {
        if (!sameData(aValue, bValue)) return false;
      } else if (SCHEMA_MAPS.has(key)) {
        if (!this.schemaMap(aValue, bValue, depth)) return false;
      } else if (!this.schema(aValue, bValue, depth + 1)) {
        return false;
      }
    }
    let bCount = 0;
    for (const key in b) if (key !== "$ref" && !ANNOTATIONS.has(key) && !key.startsWith("x-")) bCount++;
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
