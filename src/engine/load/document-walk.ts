/**
 * The walk over a whole parsed document that every upload runs (document-checks.ts): nesting depth, values that
 * contain themselves (YAML aliases), and every `$ref` resolved as it is met. Example values are payload data: a
 * "$ref" key inside them is not a reference, so `data` turns reference checks off below them.
 *
 * Two walkers, one meaning. JSON.parse output is a tree (each object has exactly one path), so the JSON walker
 * carries only the depth and the two keys above the object, and finds the path of the few objects with a problem
 * in a second walk afterwards: keeping a path array up to date at every one of GitHub's 80,000 objects cost four
 * times the walk itself. YAML may reach one object from several places or contain itself; its walker keeps the
 * path and the objects on it as it goes.
 */
import { keepLayout } from "../keep-layout";
import { isRecord } from "../normalize/normalize-pointer";
import { MAX_DOCUMENT_REFERENCES, RefResolver, tooManyReferences } from "../normalize/ref-resolver";

export const MAX_DOCUMENT_DEPTH = 200;

type Token = string | number;

export interface ProblemSink {
  add(tokens: readonly Token[], message: string): void;
}

export interface DocumentWalk {
  /** False when the value cannot be used at all (too deep, containing itself, or holding too many references). */
  usable: boolean;
  /** Every `$ref` met, resolved and cached. */
  resolver: RefResolver;
  /** References that cannot be used, in document order (listed after the structural problems). */
  referenceProblems: { at: Token[]; message: string }[];
}

const tooDeep = () => `the document nests deeper than ${MAX_DOCUMENT_DEPTH} levels`;

/** Whether the field `key` (not below `properties`) holds example data rather than OpenAPI objects. */
function holdsData(key: string, child: object, parent: Token | undefined, grandparent: Token | undefined): boolean {
  if (key === "example" || (key === "value" && grandparent === "examples")) return true;
  // JSON Schema values: a `$ref` member of an enum, const or default value is data (`default` under
  // `responses` is the default Response Object).
  if (key === "enum" || key === "const" || (key === "default" && parent !== "responses")) return true;
  return key === "examples" && !isRecord(child); // JSON Schema `examples` array
}

/** Walks `value`; problems that make it unusable go to `problems` at once, reference problems are returned. */
export function walkDocument(
  value: Record<string, unknown>,
  mayShareNodes: boolean,
  problems: ProblemSink,
): DocumentWalk {
  const resolver = new RefResolver(value);
  if (mayShareNodes) {
    const walker = new PathWalker(resolver, problems);
    return { usable: walker.walk(value, false), resolver, referenceProblems: walker.referenceProblems };
  }
  const walker = new TreeWalker(resolver);
  const usable = walker.walk(value, false, 0, undefined, undefined) && walker.resolveReferences();
  const found = walker.found;
  if (found.length === 0) return { usable, resolver, referenceProblems: [] };
  const paths = pathsOf(value, new Set(found.map((entry) => entry.node)));
  const located = found.map(({ node, message, atRef }) => {
    const path = paths.get(node) ?? [];
    return { at: atRef ? [...path, "$ref"] : path.slice(0, 20), message };
  });
  if (!usable) {
    // The walk stopped at its last finding (too deep, or one reference too many); earlier reference problems are
    // not listed then, as the document cannot be read at all.
    const last = located[located.length - 1] as { at: Token[]; message: string };
    problems.add(last.at, last.message);
    return { usable, resolver, referenceProblems: [] };
  }
  return { usable, resolver, referenceProblems: located };
}

/**
 * The walk for JSON (a tree): depth and the two keys above the object as arguments, no path kept. References
 * are collected as they are met and resolved after the walk: resolving reads the document by name (root,
 * `components`, `schemas`), and inlined into the walk those reads tied its optimized code to this document's
 * object layouts, which die with the document, so every upload walked in unoptimized code again.
 */
class TreeWalker {
  /** Objects with a problem, in walk order; the walk stops after a finding that makes the document unusable. */
  readonly found: { node: object; message: string; atRef: boolean }[] = [];
  /** Each `$ref` met, as its object followed by its text, in walk order. */
  private readonly met: (object | string)[] = [];

  constructor(private readonly resolver: RefResolver) {}

  walk(
    value: object,
    data: boolean,
    depth: number,
    parent: Token | undefined,
    grandparent: Token | undefined,
  ): boolean {
    if (depth > MAX_DOCUMENT_DEPTH) {
      this.found.push({ node: value, message: tooDeep(), atRef: false });
      return false;
    }
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        if (typeof item !== "object" || item === null) continue;
        if (!this.walk(item, data, depth + 1, index, parent)) return false;
      }
      return true;
    }
    const record = value as Record<string, unknown>;
    const namesProperties = parent === "properties" || parent === "patternProperties";
    for (const key in record) {
      const child = record[key];
      // Most values are strings, numbers and booleans: nothing to walk below them. A `$ref` is met here too,
      // as one of the keys (reading `record.$ref` by name at each of 90,000 differently shaped objects costs
      // a megamorphic lookup each).
      if (typeof child !== "object" || child === null) {
        if (
          (key === "$ref" || key === "$dynamicRef") &&
          !data &&
          typeof child === "string" &&
          !this.checkReference(record, key === "$ref" ? child : DYNAMIC)
        )
          return false;
        continue;
      }
      const childData = data || (!namesProperties && holdsData(key, child, parent, grandparent));
      if (!this.walk(child, childData, depth + 1, key, parent)) return false;
    }
    return true;
  }

  private checkReference(record: object, ref: string): boolean {
    if (this.met.length >= 2 * MAX_DOCUMENT_REFERENCES) {
      this.found.push({ node: record, message: tooManyReferences(), atRef: true });
      return false;
    }
    this.met.push(record, ref);
    return true;
  }

  /** Resolves every reference met, in walk order; always true (unresolvable references are findings). */
  resolveReferences(): boolean {
    const met = this.met;
    for (let index = 0; index < met.length; index += 2) {
      const record = met[index] as Record<string, unknown>;
      const ref = met[index + 1] as string;
      const problem = referenceProblem(this.resolver, record, ref === DYNAMIC);
      if (problem !== undefined) this.found.push({ node: record, message: problem, atRef: ref !== DYNAMIC });
    }
    return true;
  }
}

/** Marks a `$dynamicRef` among the references met (a `$ref` text never starts with a NUL). */
const DYNAMIC = "\u0000$dynamicRef";

/**
 * Why a reference of `record` cannot be used, or undefined. `$ref`s resolve with 3.1 base URIs and anchors
 * (ref-resolver.ts, schema-resources.ts); a `$dynamicRef` whose target depends on the dynamic scope is refused
 * by name, never dropped.
 */
function referenceProblem(
  resolver: RefResolver,
  record: Record<string, unknown>,
  dynamic: boolean,
): string | undefined {
  if (dynamic) {
    const answer = resolver.dynamicRefOf(record);
    if (answer === undefined) return undefined;
    if (!answer.ok) return answer.reason;
    const target = resolver.resolveRef(answer.ref);
    return target.ok ? undefined : target.reason;
  }
  const result = resolver.resolveAt(record);
  return result.ok ? undefined : result.reason;
}

/** The path of each of `targets` in a tree, found in one walk that stops once all are found. */
function pathsOf(root: object, targets: ReadonlySet<object>): Map<object, Token[]> {
  const paths = new Map<object, Token[]>();
  const tokens: Token[] = [];
  const visit = (value: unknown): void => {
    if (typeof value !== "object" || value === null || paths.size === targets.size) return;
    if (targets.has(value)) paths.set(value, [...tokens]);
    if (tokens.length > MAX_DOCUMENT_DEPTH) return;
    const entries: [Token, unknown][] = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value);
    for (const [token, child] of entries) {
      tokens.push(token);
      visit(child);
      tokens.pop();
    }
  };
  visit(root);
  return paths;
}

/**
 * The walk for YAML: the path kept as it goes (a node may have several), and the objects on it, so a value that
 * contains itself is refused instead of walked forever. It iterates with for-in and allocates nothing per node.
 */
class PathWalker {
  readonly tokens: Token[] = [];
  readonly referenceProblems: { at: Token[]; message: string }[] = [];
  private readonly ancestors = new Set<object>();
  private references = 0;

  constructor(
    private readonly resolver: RefResolver,
    private readonly problems: ProblemSink,
  ) {}

  walk(value: unknown, data: boolean): boolean {
    if (typeof value !== "object" || value === null) return true;
    const tokens = this.tokens;
    if (tokens.length > MAX_DOCUMENT_DEPTH) {
      this.problems.add(tokens.slice(0, 20), tooDeep());
      return false;
    }
    if (this.ancestors.has(value)) {
      this.problems.add(
        tokens,
        "the document contains itself (a recursive YAML alias); use $ref for recursive structures",
      );
      return false;
    }
    this.ancestors.add(value);
    const fine = Array.isArray(value) ? this.items(value, data) : this.fields(value as Record<string, unknown>, data);
    this.ancestors.delete(value);
    return fine;
  }

  private items(list: unknown[], data: boolean): boolean {
    const tokens = this.tokens;
    for (let index = 0; index < list.length; index++) {
      const item = list[index];
      if (typeof item !== "object" || item === null) continue;
      tokens.push(index);
      const fine = this.walk(item, data);
      tokens.pop();
      if (!fine) return false;
    }
    return true;
  }

  private fields(record: Record<string, unknown>, data: boolean): boolean {
    const tokens = this.tokens;
    const parent = tokens.length > 0 ? tokens[tokens.length - 1] : undefined;
    const grandparent = tokens.length > 1 ? tokens[tokens.length - 2] : undefined;
    const namesProperties = parent === "properties" || parent === "patternProperties";
    for (const key in record) {
      const child = record[key];
      // The `$ref` where the JSON walker meets it, so both list reference problems in the same order.
      if (typeof child !== "object" || child === null) {
        if (
          (key === "$ref" || key === "$dynamicRef") &&
          !data &&
          typeof child === "string" &&
          !this.checkReference(record, key === "$dynamicRef")
        )
          return false;
        continue;
      }
      const childData = data || (!namesProperties && holdsData(key, child, parent, grandparent));
      tokens.push(key);
      const fine = this.walk(child, childData);
      tokens.pop();
      if (!fine) return false;
    }
    return true;
  }

  /** False when the document holds more references than an upload may resolve (the walk stops there). */
  private checkReference(record: Record<string, unknown>, dynamic: boolean): boolean {
    const keyword = dynamic ? "$dynamicRef" : "$ref";
    if (++this.references > MAX_DOCUMENT_REFERENCES) {
      this.problems.add([...this.tokens, keyword], tooManyReferences());
      return false;
    }
    const problem = referenceProblem(this.resolver, record, dynamic);
    if (problem !== undefined) this.referenceProblems.push({ at: [...this.tokens, keyword], message: problem });
    return true;
  }
}

// The walkers' layouts outlive each upload (keep-layout.ts): the walk's optimized code is built for them.
keepLayout(new TreeWalker(new RefResolver({})));
keepLayout(new PathWalker(new RefResolver({}), { add: () => undefined }));
