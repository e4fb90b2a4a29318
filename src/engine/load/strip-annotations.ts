/**
 * A validated document without the annotations no rule reads: the descriptions, summaries and examples of the
 * objects a verdict compares (operations, parameters, request bodies, responses, media types, schemas, path items,
 * info, tags) emptied ("", [] or {}: the keys stay, so the identity walk meets fields in the same order on both
 * sides), and the components' examples that no remaining `$ref` needs dropped. In GitHub's description they are over half of the text
 * (6.9 MB as compact JSON, 4.2 MB without them). The structural identity walk ignores exactly these fields where
 * they are emptied (diff/structural-identity.ts; what it compares exactly, such as response headers and
 * encodings, is kept as it is, so the comparison form never makes it do more work), schema comparison ignores them
 * as annotations (normalize-schema.ts), and no rule quotes them, so a verdict with the stripped document as its contract side is the verdict with the whole
 * document, byte for byte (test/node/verdict-form.test.ts holds that on GitHub's and GHES' descriptions).
 *
 * Only named fields of known objects are dropped: map keys (property names, status codes, media types, path
 * templates) are names, never fields, and every value the table below does not describe (extensions, links,
 * callbacks, security requirements, enum/const/default data, unknown schema keywords) is kept as it is. When a
 * `$ref` that stays points into a dropped value, a `$ref` leaves the document, or schemas use `$id` or anchors,
 * the answer is null: the caller then keeps the whole document.
 */
import type { OpenApiDocument } from "../types";

type Shape = { drop: readonly string[]; fields: Readonly<Record<string, Child>> };
type Child = { kind: string; as: "one" | "map" | "list" | "oneOrList" };

const one = (kind: string): Child => ({ kind, as: "one" });
const map = (kind: string): Child => ({ kind, as: "map" });
const list = (kind: string): Child => ({ kind, as: "list" });

const operation: Shape = {
  drop: ["summary", "description"],
  fields: { parameters: list("parameter"), requestBody: one("requestBody"), responses: map("response") },
};
const parameter: Shape = {
  drop: ["description", "example", "examples"],
  fields: { schema: one("schema"), content: map("mediaType") },
};
const SCHEMA_FIELDS: Record<string, Child> = {
  properties: map("schema"),
  patternProperties: map("schema"),
  $defs: map("schema"),
  definitions: map("schema"),
  dependentSchemas: map("schema"),
  items: { kind: "schema", as: "oneOrList" },
  prefixItems: list("schema"),
  allOf: list("schema"),
  anyOf: list("schema"),
  oneOf: list("schema"),
};
for (const key of [
  "not",
  "if",
  "then",
  "else",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "additionalItems",
])
  SCHEMA_FIELDS[key] = one("schema");

const SHAPES: Readonly<Record<string, Shape>> = {
  root: {
    drop: [],
    fields: {
      info: one("info"),
      tags: list("tag"),
      paths: map("pathItem"),
      webhooks: map("pathItem"),
      components: one("components"),
    },
  },
  info: { drop: ["summary", "description"], fields: {} },
  tag: { drop: ["description"], fields: {} },
  pathItem: {
    drop: ["summary", "description"],
    fields: {
      parameters: list("parameter"),
      ...Object.fromEntries(
        ["get", "put", "post", "delete", "options", "head", "patch", "trace", "query"].map((method) => [
          method,
          one("operation"),
        ]),
      ),
    },
  },
  operation,
  parameter,
  requestBody: { drop: ["description"], fields: { content: map("mediaType") } },
  // Encodings and response headers are compared exactly by the identity walk: kept as they are.
  mediaType: { drop: ["example", "examples"], fields: { schema: one("schema") } },
  response: { drop: ["description"], fields: { content: map("mediaType") } },
  components: {
    drop: [],
    fields: {
      schemas: map("schema"),
      responses: map("response"),
      parameters: map("parameter"),
      requestBodies: map("requestBody"),
      pathItems: map("pathItem"),
    },
  },
  schema: { drop: ["description", "example", "examples", "summary"], fields: SCHEMA_FIELDS },
};

/** An annotation's value emptied: "" for text, [] and {} for lists and objects, anything else (small) as it is. */
const emptied = (value: unknown): unknown =>
  typeof value === "string" ? "" : Array.isArray(value) ? [] : typeof value === "object" && value !== null ? {} : value;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const escapeSegment = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");

const EXAMPLES_AT = "/components/examples";

class Stripper {
  /** JSON pointers of every dropped value. */
  readonly dropped = new Set<string>();
  /** The components' examples (each entry dropped unless a `$ref` that stays needs it) and their place in the output. */
  examples: { from: Record<string, unknown>; into: Record<string, unknown> } | null = null;

  object(value: unknown, kind: string, at: string): unknown {
    if (!isObject(value)) return value;
    const shape = SHAPES[kind]!;
    const out: Record<string, unknown> = {};
    for (const key in value) {
      const child = value[key];
      const here = `${at}/${escapeSegment(key)}`;
      if (shape.drop.includes(key)) {
        // The key stays, with an empty value of its kind: the identity walk compares fields in document order,
        // and a contract missing keys the snapshot has would put every object it walks out of step.
        this.dropped.add(here);
        out[key] = emptied(child);
        continue;
      }
      if (here === EXAMPLES_AT && kind === "components" && isObject(child)) {
        // Filled after the walk, in the original order, with the entries still referred to.
        out[key] = {};
        this.examples = { from: child, into: out[key] as Record<string, unknown> };
        continue;
      }
      const field = shape.fields[key];
      out[key] = field ? this.child(child, field, here) : child;
    }
    return out;
  }

  private child(value: unknown, field: Child, at: string): unknown {
    if (Array.isArray(value))
      return field.as === "list" || field.as === "oneOrList"
        ? value.map((item, index) => this.object(item, field.kind, `${at}/${index}`))
        : value;
    if (field.as === "map") {
      if (!isObject(value)) return value;
      const out: Record<string, unknown> = {};
      for (const name in value) out[name] = this.object(value[name], field.kind, `${at}/${escapeSegment(name)}`);
      return out;
    }
    return field.as === "list" ? value : this.object(value, field.kind, at);
  }
}

const ANCHORS = new Set(["$id", "$anchor", "$dynamicRef", "$dynamicAnchor"]);

/** Every JSON pointer a `$ref` of `value` points at, or null when one leaves the document or schemas use `$id` or anchors. */
function localTargets(value: unknown): Set<string> | null {
  const targets = new Set<string>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    if (!isObject(node)) continue;
    for (const key in node) {
      const child = node[key];
      if (ANCHORS.has(key)) return null;
      if (key === "$ref" && typeof child === "string") {
        if (!child.startsWith("#")) return null;
        let pointer: string;
        try {
          pointer = decodeURIComponent(child.slice(1));
        } catch {
          return null;
        }
        targets.add(pointer);
      } else stack.push(child);
    }
  }
  return targets;
}

/** `document` without the annotations no rule reads, or null when that cannot be done safely (see above). */
export function stripAnnotations(document: OpenApiDocument): OpenApiDocument | null {
  const stripper = new Stripper();
  const stripped = stripper.object(document, "root", "") as Record<string, unknown>;
  const keptExamples = new Set<string>();
  let scan: unknown = stripped;
  // Each round checks the `$ref`s of what was kept last round: first the stripped document, then the examples it refers to.
  while (scan !== undefined) {
    const targets = localTargets(scan);
    if (!targets) return null;
    const needed: Record<string, unknown> = {};
    for (const target of targets) {
      if (target === "") return null;
      const example =
        stripper.examples && target.startsWith(`${EXAMPLES_AT}/`)
          ? target
              .slice(EXAMPLES_AT.length + 1)
              .split("/")[0]!
              .replace(/~1/g, "/")
              .replace(/~0/g, "~")
          : undefined;
      if (example !== undefined && Object.hasOwn(stripper.examples!.from, example)) {
        if (!keptExamples.has(example)) needed[example] = stripper.examples!.from[example];
        keptExamples.add(example);
        continue;
      }
      // A target inside a dropped value, or a dropped value itself: the stripped document would not resolve it.
      for (let end = target.length; end > 0; end = target.lastIndexOf("/", end - 1)) {
        if (stripper.dropped.has(target.slice(0, end))) return null;
      }
    }
    scan = Object.keys(needed).length > 0 ? needed : undefined;
  }
  if (stripper.examples) {
    for (const name in stripper.examples.from)
      if (keptExamples.has(name)) stripper.examples.into[name] = stripper.examples.from[name];
  }
  return stripped as OpenApiDocument;
}
