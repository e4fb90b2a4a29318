/**
 * JSON Schema 2020-12 identifiers inside one OpenAPI 3.1 (or 3.2) document: `$id` sets the base URI of a schema
 * resource, `$anchor` (and `$dynamicAnchor`) name a schema inside it, and a `$ref` is a URI reference resolved
 * against the base in effect where it is written. Each reference that does not already mean the document's own
 * "#/json/pointer" is rewritten, once per document, to that pointer, so the rest of the engine (the resolver,
 * the schema views, payload validation) keeps reading plain in-document pointers.
 *
 * - "#/$defs/a" inside a resource with `$id` is relative to that resource, not to the document;
 * - "item.json", "urn:example:item", "https://example.com/item#/$defs/a" resolve to the resource of that `$id`;
 * - "#node" (or "item.json#node") to the schema with `$anchor: node` in that resource;
 * - a reference to a resource this document does not hold names another document: it stays refused, and the
 *   resolver's message says so.
 * `$dynamicRef` is resolved statically here (its initial target, which the upload checks exists); payload
 * validation then applies the dynamic scope (payload-schema.ts, through `dynamicTarget`): when the initial
 * target declares a `$dynamicAnchor` of the fragment's name, the outermost schema resource entered on the way
 * that declares one wins. The verdict compares schemas statically and does not follow `$dynamicRef`.
 *
 * OpenAPI 3.0 has none of these keywords (its Schema Object is a draft-4 subset without `$id`): 3.0 documents
 * are never walked here. Example data (`example`, `examples`, `enum`, `const`, `default`) is data: an `$id` or
 * `$ref` inside it is a value.
 */
import { isRecord, pointerOf, refTokens } from "./normalize-pointer";

/** The base URI of a document that declares none (3.2 `$self` sets one): references resolve against it. */
const DOCUMENT_BASE = "https://document.arbiter.invalid/openapi.json";

/** A `$dynamicRef`'s initial target; `anchor` names the `$dynamicAnchor` the dynamic scope may override. */
export type DynamicReference = { ok: true; ref: string; anchor: string | undefined } | { ok: false; reason: string };

interface Walk {
  resources: Map<string, string[]>;
  anchors: Map<string, string[]>;
  /** "<resource base>#<name>" -> where the `$dynamicAnchor` is. */
  dynamicAnchors: Map<string, string[]>;
  refs: { record: Record<string, unknown>; base: string; ref: string; dynamic: boolean }[];
  /** Objects on the current path: a YAML document that contains itself is not walked forever. */
  ancestors: Set<object>;
  /** Objects left to visit: YAML aliases can make a small document reach one object very many times. */
  budget: number;
}

function withoutFragment(uri: string): string {
  const hash = uri.indexOf("#");
  return hash < 0 ? uri : uri.slice(0, hash);
}

function resolveUri(ref: string, base: string): string | undefined {
  try {
    return new URL(ref, base).href;
  } catch {
    return undefined;
  }
}

/** Fields whose values are data, not schemas or OpenAPI objects (`default` under `responses` is a Response Object). */
function holdsData(key: string, parent: string | undefined): boolean {
  return (
    key === "example" ||
    key === "enum" ||
    key === "const" ||
    (key === "default" && parent !== "responses") ||
    (key === "examples" && parent !== "components")
  );
}

export class SchemaResources {
  /** Objects whose `$ref` means another pointer than it reads: the object -> "#/pointer" in the document. */
  private readonly rewritten = new WeakMap<object, string>();
  private readonly dynamic = new WeakMap<object, DynamicReference>();
  private readonly dynamicAnchorTokens: ReadonlyMap<string, string[]>;
  private readonly dynamicBases = new Set<string>();
  /** Whether any reference needed rewriting or any `$dynamicRef` exists (most documents: no). */
  readonly active: boolean;
  readonly documentBase: string;

  constructor(private readonly root: Record<string, unknown>) {
    const self = typeof root.$self === "string" ? resolveUri(root.$self, DOCUMENT_BASE) : undefined;
    const documentBase = withoutFragment(self ?? DOCUMENT_BASE);
    this.documentBase = documentBase;
    const walk: Walk = {
      resources: new Map([[documentBase, []]]),
      anchors: new Map(),
      dynamicAnchors: new Map(),
      refs: [],
      ancestors: new Set(),
      budget: MAX_VISITS,
    };
    collect(root, documentBase, [], undefined, false, walk, 0);
    let active = false;
    for (const { record, base, ref, dynamic } of walk.refs) {
      const target = this.locate(ref, base, walk);
      if (dynamic) {
        active = true;
        this.dynamic.set(record, this.dynamicAnswer(ref, base, target, walk));
        continue;
      }
      // A plain pointer written where the base is the document's own means what it reads.
      if (target === undefined || (base === documentBase && refTokens(ref) !== undefined)) continue;
      this.rewritten.set(record, fragmentOf(target));
      active = true;
    }
    this.active = active;
    this.dynamicAnchorTokens = walk.dynamicAnchors;
    for (const key of walk.dynamicAnchors.keys()) this.dynamicBases.add(key.slice(0, key.lastIndexOf("#")));
  }

  /** The in-document pointer `record.$ref` means, or its text when it needs no rewriting (or cannot be resolved). */
  refOf(record: Record<string, unknown>): string {
    return this.rewritten.get(record) ?? (record.$ref as string);
  }

  dynamicRefOf(record: Record<string, unknown>): DynamicReference | undefined {
    return this.dynamic.get(record);
  }

  /** The tokens (from the document root) of what `ref`, written where the base is `base`, names; undefined if nothing here. */
  private locate(ref: string, base: string, walk: Walk): string[] | undefined {
    const absolute = resolveUri(ref, base);
    if (absolute === undefined) return undefined;
    const hash = absolute.indexOf("#");
    const resource = walk.resources.get(hash < 0 ? absolute : absolute.slice(0, hash));
    if (!resource) return undefined;
    const fragment = hash < 0 ? "" : absolute.slice(hash + 1);
    if (fragment === "" || fragment.startsWith("/") || fragment.startsWith("%2F")) {
      const tokens = refTokens(`#${fragment}`);
      return tokens ? [...resource, ...tokens] : undefined;
    }
    return walk.anchors.get(absolute) ?? walk.anchors.get(`${absolute.slice(0, hash)}#${safeDecode(fragment)}`);
  }

  private dynamicAnswer(ref: string, base: string, target: string[] | undefined, walk: Walk): DynamicReference {
    if (target === undefined)
      return {
        ok: false,
        reason: `$dynamicRef "${ref}" does not resolve to a schema in this document (references to other documents are not allowed)`,
      };
    const absolute = resolveUri(ref, base) ?? ref;
    const hash = absolute.indexOf("#");
    const name = hash < 0 ? "" : safeDecode(absolute.slice(hash + 1));
    // Dynamic only when the initial target is itself a $dynamicAnchor of that name (2020-12 section 8.2.3.2).
    const dynamic =
      name !== "" &&
      !name.startsWith("/") &&
      walk.dynamicAnchors.get(`${absolute.slice(0, hash)}#${name}`)?.join("/") === target.join("/");
    return { ok: true, ref: fragmentOf(target), anchor: dynamic ? name : undefined };
  }

  /** The schema resource base in effect where the value at `tokens` sits (its own `$id` not applied). */
  baseAt(tokens: readonly string[]): string {
    let base = this.documentBase;
    let current: unknown = this.root;
    for (const token of tokens) {
      if (typeof current !== "object" || current === null) break;
      if (isRecord(current) && typeof current.$id === "string")
        base = withoutFragment(resolveUri(current.$id, base) ?? base);
      current = (current as Record<string, unknown>)[token];
    }
    return base;
  }

  /** The base a schema's own `$id` sets, written where `base` is in effect. */
  ownBase(schema: Record<string, unknown>, base: string): string {
    return typeof schema.$id === "string" ? withoutFragment(resolveUri(schema.$id, base) ?? base) : base;
  }

  /** Where resource `base` declares `$dynamicAnchor: name`, if it does. */
  dynamicAnchorOf(base: string, name: string): string[] | undefined {
    return this.dynamicAnchorTokens.get(`${base}#${name}`);
  }

  /** Whether resource `base` declares any `$dynamicAnchor` (only those resources matter to a dynamic scope). */
  declaresDynamicAnchors(base: string): boolean {
    return this.dynamicBases.has(base);
  }
}

/** The "#/json/pointer" fragment of `tokens`, with "%" encoded so that reading it back decodes to the same tokens. */
export function fragmentOf(tokens: readonly string[]): string {
  return `#${pointerOf(tokens).replace(/%/g, "%25")}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const MAX_DEPTH = 200;
/** GitHub's 13 MB description has about 80,000 objects; an upload is at most a few times that. */
const MAX_VISITS = 2_000_000;

function collect(
  value: unknown,
  base: string,
  tokens: string[],
  parent: string | undefined,
  namesProperties: boolean,
  walk: Walk,
  depth: number,
): void {
  if (
    depth > MAX_DEPTH ||
    typeof value !== "object" ||
    value === null ||
    walk.ancestors.has(value) ||
    --walk.budget < 0
  )
    return;
  walk.ancestors.add(value);
  try {
    collectObject(value, base, tokens, parent, namesProperties, walk, depth);
  } finally {
    walk.ancestors.delete(value);
  }
}

function collectObject(
  value: object,
  base: string,
  tokens: string[],
  parent: string | undefined,
  namesProperties: boolean,
  walk: Walk,
  depth: number,
): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => collect(item, base, [...tokens, String(index)], parent, false, walk, depth + 1));
    return;
  }
  const record = value as Record<string, unknown>;
  let here = base;
  if (!namesProperties) {
    if (typeof record.$id === "string") {
      const id = resolveUri(record.$id, base);
      if (id !== undefined) {
        here = withoutFragment(id);
        if (!walk.resources.has(here)) walk.resources.set(here, tokens);
      }
    }
    for (const keyword of ["$anchor", "$dynamicAnchor"] as const) {
      const anchor = record[keyword];
      if (typeof anchor !== "string") continue;
      const key = `${here}#${anchor}`;
      if (!walk.anchors.has(key)) walk.anchors.set(key, tokens);
      if (keyword === "$dynamicAnchor" && !walk.dynamicAnchors.has(key)) walk.dynamicAnchors.set(key, tokens);
    }
    if (typeof record.$ref === "string") walk.refs.push({ record, base: here, ref: record.$ref, dynamic: false });
    if (typeof record.$dynamicRef === "string")
      walk.refs.push({ record, base: here, ref: record.$dynamicRef, dynamic: true });
  }
  const last = tokens[tokens.length - 1];
  for (const key of Object.keys(record)) {
    const child = record[key];
    if (typeof child !== "object" || child === null) continue;
    if (!namesProperties && holdsData(key, last)) continue;
    collect(
      child,
      here,
      [...tokens, key],
      key,
      !namesProperties &&
        (key === "properties" ||
          key === "patternProperties" ||
          key === "$defs" ||
          key === "definitions" ||
          key === "dependentSchemas"),
      walk,
      depth + 1,
    );
  }
}
