/**
 * Unknown fixed fields: OpenAPI 3.0 and 3.1 objects have a closed list of fields plus `x-` extensions, so a key
 * outside that list is a typo (`gett:`, `parameter:`, `path:`), never a feature. A typo would otherwise be read
 * as "no operations here" and the next correct snapshot blamed for undocumented operations, so each one is
 * refused with its path, the fields the version allows and the closest of them.
 *
 * The tables are data (one entry per object of the specification); one walker follows the object graph from
 * the OpenAPI object. Schema objects are JSON Schema, open to any keyword, and are never checked; neither are
 * Reference objects (3.0/3.1 say fields beside `$ref` are ignored). 3.2 documents are not checked: 3.2 added
 * fields in many objects and a table that lags behind would refuse valid documents.
 *
 * Specifications: https://spec.openapis.org/oas/v3.0.3.html and https://spec.openapis.org/oas/v3.1.0.html
 */
import { keepLayout } from "../keep-layout";
import { isRecord } from "../normalize/normalize-pointer";

type Minor = 0 | 1;

interface FixedObject {
  /** The specification's name, used in messages ("Path Item Object"). */
  readonly name: string;
  readonly fields: readonly string[];
  /** Fields 3.1 adds to the 3.0 list. */
  readonly added31?: readonly string[];
}

const OBJECTS = {
  openapi: {
    name: "OpenAPI Object",
    fields: ["openapi", "info", "servers", "paths", "components", "security", "tags", "externalDocs"],
    added31: ["jsonSchemaDialect", "webhooks"],
  },
  info: {
    name: "Info Object",
    fields: ["title", "description", "termsOfService", "contact", "license", "version"],
    added31: ["summary"],
  },
  contact: { name: "Contact Object", fields: ["name", "url", "email"] },
  license: { name: "License Object", fields: ["name", "url"], added31: ["identifier"] },
  server: { name: "Server Object", fields: ["url", "description", "variables"] },
  serverVariable: { name: "Server Variable Object", fields: ["enum", "default", "description"] },
  components: {
    name: "Components Object",
    fields: [
      "schemas",
      "responses",
      "parameters",
      "examples",
      "requestBodies",
      "headers",
      "securitySchemes",
      "links",
      "callbacks",
    ],
    added31: ["pathItems"],
  },
  pathItem: {
    name: "Path Item Object",
    fields: [
      "$ref",
      "summary",
      "description",
      "get",
      "put",
      "post",
      "delete",
      "options",
      "head",
      "patch",
      "trace",
      "servers",
      "parameters",
    ],
  },
  operation: {
    name: "Operation Object",
    fields: [
      "tags",
      "summary",
      "description",
      "externalDocs",
      "operationId",
      "parameters",
      "requestBody",
      "responses",
      "callbacks",
      "deprecated",
      "security",
      "servers",
    ],
  },
  externalDocs: { name: "External Documentation Object", fields: ["description", "url"] },
  parameter: {
    name: "Parameter Object",
    fields: [
      "name",
      "in",
      "description",
      "required",
      "deprecated",
      "allowEmptyValue",
      "style",
      "explode",
      "allowReserved",
      "schema",
      "example",
      "examples",
      "content",
    ],
  },
  requestBody: { name: "Request Body Object", fields: ["description", "content", "required"] },
  mediaType: { name: "Media Type Object", fields: ["schema", "example", "examples", "encoding"] },
  encoding: { name: "Encoding Object", fields: ["contentType", "headers", "style", "explode", "allowReserved"] },
  response: { name: "Response Object", fields: ["description", "headers", "content", "links"] },
  example: { name: "Example Object", fields: ["summary", "description", "value", "externalValue"] },
  link: {
    name: "Link Object",
    fields: ["operationRef", "operationId", "parameters", "requestBody", "description", "server"],
  },
  header: {
    name: "Header Object",
    fields: [
      "description",
      "required",
      "deprecated",
      "allowEmptyValue",
      "style",
      "explode",
      "allowReserved",
      "schema",
      "example",
      "examples",
      "content",
    ],
  },
  tag: { name: "Tag Object", fields: ["name", "description", "externalDocs"] },
  securityScheme: {
    name: "Security Scheme Object",
    fields: ["type", "description", "name", "in", "scheme", "bearerFormat", "flows", "openIdConnectUrl"],
  },
  oauthFlows: {
    name: "OAuth Flows Object",
    fields: ["implicit", "password", "clientCredentials", "authorizationCode"],
  },
  oauthFlow: { name: "OAuth Flow Object", fields: ["authorizationUrl", "tokenUrl", "refreshUrl", "scopes"] },
} as const satisfies Record<string, FixedObject>;

type Kind = keyof typeof OBJECTS;

/** Where to go from a field of an object: the kind of its value, of each entry of a map, or of each array item. */
type Child = { one: Kind } | { map: Kind } | { list: Kind } | { responses: true } | { callbacks: true };

const CHILDREN: { readonly [K in Kind]?: Readonly<Record<string, Child>> } = {
  openapi: {
    info: { one: "info" },
    servers: { list: "server" },
    paths: { map: "pathItem" },
    webhooks: { map: "pathItem" },
    components: { one: "components" },
    tags: { list: "tag" },
    externalDocs: { one: "externalDocs" },
  },
  info: { contact: { one: "contact" }, license: { one: "license" } },
  server: { variables: { map: "serverVariable" } },
  components: {
    responses: { map: "response" },
    parameters: { map: "parameter" },
    examples: { map: "example" },
    requestBodies: { map: "requestBody" },
    headers: { map: "header" },
    securitySchemes: { map: "securityScheme" },
    links: { map: "link" },
    callbacks: { callbacks: true },
    pathItems: { map: "pathItem" },
  },
  pathItem: {
    get: { one: "operation" },
    put: { one: "operation" },
    post: { one: "operation" },
    delete: { one: "operation" },
    options: { one: "operation" },
    head: { one: "operation" },
    patch: { one: "operation" },
    trace: { one: "operation" },
    servers: { list: "server" },
    parameters: { list: "parameter" },
  },
  operation: {
    externalDocs: { one: "externalDocs" },
    parameters: { list: "parameter" },
    requestBody: { one: "requestBody" },
    responses: { responses: true },
    callbacks: { callbacks: true },
    servers: { list: "server" },
  },
  parameter: { examples: { map: "example" }, content: { map: "mediaType" } },
  header: { examples: { map: "example" }, content: { map: "mediaType" } },
  requestBody: { content: { map: "mediaType" } },
  mediaType: { examples: { map: "example" }, encoding: { map: "encoding" } },
  encoding: { headers: { map: "header" } },
  response: { headers: { map: "header" }, content: { map: "mediaType" }, links: { map: "link" } },
  link: { server: { one: "server" } },
  tag: { externalDocs: { one: "externalDocs" } },
  securityScheme: { flows: { one: "oauthFlows" } },
  oauthFlows: {
    implicit: { one: "oauthFlow" },
    password: { one: "oauthFlow" },
    clientCredentials: { one: "oauthFlow" },
    authorizationCode: { one: "oauthFlow" },
  },
};

/**
 * CHILDREN as the walker reads it: one Map per kind, each entry of one shape. The walker runs over every
 * non-schema object of every upload; testing which variant of Child an entry is (`"one" in child`) on objects of
 * five shapes, and looking fields up by name in the table's object literals, cost more than the walk itself.
 */
const ONE = 0;
const LIST = 1;
const MAP = 2;
const RESPONSES = 3;
const CALLBACKS = 4;

interface Step {
  readonly mode: number;
  /** The kind of the value (ONE), of each item (LIST) or of each entry (MAP); unused for RESPONSES and CALLBACKS. */
  readonly kind: Kind;
}

function stepOf(child: Child): Step {
  if ("one" in child) return { mode: ONE, kind: child.one };
  if ("list" in child) return { mode: LIST, kind: child.list };
  if ("map" in child) return { mode: MAP, kind: child.map };
  return "responses" in child ? { mode: RESPONSES, kind: "response" } : { mode: CALLBACKS, kind: "pathItem" };
}

const NO_STEPS: ReadonlyMap<string, Step> = new Map();
const STEPS: ReadonlyMap<Kind, ReadonlyMap<string, Step>> = new Map(
  Object.entries(CHILDREN).map(([kind, children]) => [
    kind as Kind,
    new Map(Object.entries(children).map(([field, child]) => [field, stepOf(child)])),
  ]),
);
const PATH_ITEM_MAP: Step = { mode: MAP, kind: "pathItem" };

function isExtension(key: string): boolean {
  return key.charCodeAt(0) === 120 && key.charCodeAt(1) === 45;
}

export interface UnknownField {
  tokens: (string | number)[];
  message: string;
}

/** Per minor version, per kind: looked up once per object of every upload, so keyed without building a string. */
const allowedCache: readonly Map<Kind, ReadonlySet<string>>[] = [new Map(), new Map()];

function allowedFields(kind: Kind, minor: Minor): ReadonlySet<string> {
  const cache = allowedCache[minor] as Map<Kind, ReadonlySet<string>>;
  let allowed = cache.get(kind);
  if (!allowed) {
    const object: FixedObject = OBJECTS[kind];
    allowed = new Set(minor === 1 ? [...object.fields, ...(object.added31 ?? [])] : object.fields);
    cache.set(kind, allowed);
  }
  return allowed;
}

/** Edit distance counting a swap of two neighbours as one edit (`psot` -> `post`), stopping once above `limit`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (before[j - 2] ?? 0) + 1);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? limit + 1;
}

/** The allowed name a typo most likely meant: case-insensitively equal, or at most two edits away (one for short names). */
export function closestField(name: string, allowed: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  const limit = lower.length <= 4 ? 1 : 2;
  let best: { field: string; cost: number } | undefined;
  for (const field of allowed) {
    const cost = field.toLowerCase() === lower ? 0 : distance(lower, field.toLowerCase(), limit);
    if (cost <= limit && (!best || cost < best.cost)) best = { field, cost };
  }
  return best?.field;
}

class FixedFieldWalker {
  readonly found: UnknownField[] = [];
  private readonly tokens: (string | number)[] = [];

  constructor(
    private readonly minor: Minor,
    private readonly version: string,
    private readonly limit: number,
  ) {}

  /** Runs once per upload over every non-schema object: for-in and push/pop, no closures or entry arrays. */
  check(value: unknown, kind: Kind): void {
    if (!isRecord(value) || this.found.length >= this.limit) return;
    // A Reference object (or a 3.0/3.1 path item $ref with siblings) is not a fixed-field object.
    if (typeof value.$ref === "string" && kind !== "pathItem") return;
    const allowed = allowedFields(kind, this.minor);
    const steps = STEPS.get(kind) ?? NO_STEPS;
    for (const key in value) {
      if (isExtension(key)) continue;
      if (!allowed.has(key)) {
        this.report(key, kind, allowed);
        continue;
      }
      const step = steps.get(key);
      if (step === undefined) continue;
      this.tokens.push(key);
      this.follow(value[key], step);
      this.tokens.pop();
    }
  }

  private follow(value: unknown, step: Step): void {
    if (step.mode === ONE) return this.check(value, step.kind);
    const tokens = this.tokens;
    if (step.mode === LIST) {
      if (!Array.isArray(value)) return;
      for (let index = 0; index < value.length; index++) {
        tokens.push(index);
        this.check(value[index], step.kind);
        tokens.pop();
      }
      return;
    }
    if (!isRecord(value)) return;
    for (const key in value) {
      if (isExtension(key)) continue;
      const entry = value[key];
      tokens.push(key);
      if (step.mode !== CALLBACKS) this.check(entry, step.kind);
      // A Callback object maps expressions to path items.
      else if (isRecord(entry) && typeof entry.$ref !== "string") this.follow(entry, PATH_ITEM_MAP);
      tokens.pop();
    }
  }

  private report(key: string, kind: Kind, allowed: ReadonlySet<string>): void {
    if (this.found.length >= this.limit) return;
    const suggestion = closestField(key, allowed);
    const object: FixedObject = OBJECTS[kind];
    this.found.push({
      tokens: [...this.tokens, key],
      message:
        `\`${key}\` is not a field of the ${object.name} in OpenAPI ${this.version}` +
        (suggestion ? `: did you mean \`${suggestion}\`?` : ".") +
        ` Allowed: ${[...allowed].join(", ")}; extensions must start with \`x-\`.`,
    });
  }
}

// The walker's layout outlives each upload (keep-layout.ts): its optimized code is built for it.
keepLayout(new FixedFieldWalker(0, "3.0", 0));

/**
 * Unknown fields of the fixed-field objects of an OpenAPI 3.0 or 3.1 document (at most `limit`), each with its
 * path tokens and a message naming the allowed fields and the closest one. Other versions give none.
 */
export function findUnknownFields(document: Record<string, unknown>, version: string, limit = 50): UnknownField[] {
  const minor: Minor | undefined = version.startsWith("3.0.") ? 0 : version.startsWith("3.1.") ? 1 : undefined;
  if (minor === undefined) return [];
  const walker = new FixedFieldWalker(minor, minor === 0 ? "3.0" : "3.1", limit);
  walker.check(document, "openapi");
  return walker.found;
}
