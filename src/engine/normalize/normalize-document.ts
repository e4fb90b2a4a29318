/**
 * Indexes an OpenAPI document for comparison: every operation with a canonical key that ignores path parameter
 * names, trailing slashes and where the server base path is written, its parameters merged from the path item,
 * and its effective security. Indexes are cached per document object, so a document checked twice is indexed once.
 */
import { keepLayout } from "../keep-layout";
import { escapeToken, isRecord } from "./normalize-pointer";
import { RefResolver } from "./ref-resolver";
import type { OpenApiDocument } from "../types";

export interface IndexedParameter {
  name: string;
  in: string;
  required: boolean;
  schema: unknown;
  /** The schema came from `content` (a serialised media type), not from `schema` with a style. */
  viaContent: boolean;
  /** The Parameter Object itself (references followed): style, explode, allowEmptyValue. */
  definition: Record<string, unknown>;
  /** Logical pointer inside the operation: parameters are addressed by location and name. */
  pointer: string;
}

export interface IndexedOperation {
  /** Upper-case HTTP method. */
  method: string;
  /** The path template as written in the document. */
  path: string;
  /** "GET /orders/{id}": the prefix of every location inside this operation. */
  label: string;
  /** Base path + template, parameters anonymised: "/v1/orders/{}". */
  fullKey: string;
  /** Template only, parameters anonymised: "/orders/{}". */
  localKey: string;
  /** canonicalPath(path): the template with parameters anonymised, no method ("/orders/{}"). */
  localPath: string;
  /** canonicalPath(basePath + path): what fullKey holds after the method ("/v1/orders/{}"). */
  fullPath: string;
  operation: Record<string, unknown>;
  /** The path item's own parameters (shared by its operations), unresolved. */
  pathParameters: unknown;
  /** Parameters merged from the path item and the operation (computed on first use). */
  readonly parameters: IndexedParameter[];
  /** Effective security: the operation's own, else the document's; undefined when neither declares any. */
  readonly security: Record<string, string[]>[] | undefined;
}

export interface DocumentIndex {
  document: OpenApiDocument;
  /** "3.0", "3.1" or "3.2": schemas are read as that version means them. */
  version: string;
  basePath: string;
  resolver: RefResolver;
  operations: IndexedOperation[];
  byFullKey: Map<string, IndexedOperation>;
  byLocalKey: Map<string, IndexedOperation[]>;
}

const cache = new WeakMap<object, DocumentIndex>();
/** Resolvers filled while a document was validated (document.ts): the index reuses them instead of resolving again. */
const validatedResolvers = new WeakMap<object, RefResolver>();

/** Hands the resolver that validated `document` (every `$ref` in it resolved and cached) to its future index. */
export function adoptResolver(document: OpenApiDocument, resolver: RefResolver): void {
  if (resolver.root === document && !cache.has(document)) validatedResolvers.set(document, resolver);
}

/** Path with every `{name}` replaced by `{}` and without a trailing slash. */
export function canonicalPath(path: string): string {
  let result = path.replace(/\{[^}/]*\}/g, "{}");
  if (result.length > 1 && result.endsWith("/")) result = result.replace(/\/+$/, "");
  return result === "" ? "/" : result;
}

/** The path part of the first server URL ("https://api.example.com/v1/" -> "/v1"), variables at their defaults. */
export function serverBasePath(document: OpenApiDocument): string {
  const servers = document.servers;
  if (!Array.isArray(servers) || servers.length === 0 || !isRecord(servers[0])) return "";
  const server = servers[0];
  let url = typeof server.url === "string" ? server.url : "";
  const variables = isRecord(server.variables) ? server.variables : {};
  url = url.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const variable = variables[name];
    return isRecord(variable) && typeof variable.default === "string" ? variable.default : "";
  });
  const withoutOrigin = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "").replace(/^\/\/[^/]*/, "");
  const path = withoutOrigin.split(/[?#]/)[0] ?? "";
  const trimmed = path.replace(/\/+$/, "");
  return trimmed === "" || trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

function schemaVersion(document: OpenApiDocument): string {
  const version = typeof document.openapi === "string" ? document.openapi : "3.0.0";
  return version.startsWith("3.0") ? "3.0" : version.startsWith("3.1") ? "3.1" : "3.2";
}

function readParameters(list: unknown, resolver: RefResolver, into: Map<string, IndexedParameter>): void {
  if (!Array.isArray(list)) return;
  for (const raw of list) {
    const parameter = resolver.deref(raw);
    if (!isRecord(parameter) || typeof parameter.name !== "string" || typeof parameter.in !== "string") continue;
    const location = parameter.in;
    // Header names are case-insensitive (RFC 9110); everything else is matched exactly.
    const name = location === "header" ? parameter.name.toLowerCase() : parameter.name;
    let schema = parameter.schema;
    const viaContent = schema === undefined && isRecord(parameter.content);
    if (viaContent && isRecord(parameter.content)) {
      const first = Object.values(parameter.content)[0];
      schema = isRecord(first) ? first.schema : undefined;
    }
    into.set(`${location}:${name}`, {
      name: parameter.name,
      in: location,
      required: parameter.required === true,
      schema,
      viaContent,
      definition: parameter,
      pointer: `#/parameters/${escapeToken(location)}/${escapeToken(parameter.name)}`,
    });
  }
}

function readSecurity(value: unknown): Record<string, string[]>[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(isRecord).map((requirement) => {
    const copy: Record<string, string[]> = {};
    for (const [scheme, scopes] of Object.entries(requirement)) {
      copy[scheme] = Array.isArray(scopes) ? scopes.filter((scope): scope is string => typeof scope === "string") : [];
    }
    return copy;
  });
}

/**
 * An operation whose parameters and security are worked out only when a rule asks: most operations of a large
 * snapshot are identical to the contract's and never need them.
 */
class LazyOperation implements IndexedOperation {
  private mergedParameters: IndexedParameter[] | undefined;
  private effectiveSecurity: { value: Record<string, string[]>[] | undefined } | undefined;
  private locationLabel: string | undefined;

  constructor(
    readonly method: string,
    readonly path: string,
    readonly fullKey: string,
    readonly localKey: string,
    readonly localPath: string,
    readonly fullPath: string,
    readonly operation: Record<string, unknown>,
    readonly pathParameters: unknown,
    private readonly resolver: RefResolver,
    private readonly documentSecurity: unknown,
  ) {}

  get label(): string {
    this.locationLabel ??= `${this.method} ${this.path}`;
    return this.locationLabel;
  }

  get parameters(): IndexedParameter[] {
    if (!this.mergedParameters) {
      const merged = new Map<string, IndexedParameter>();
      readParameters(this.pathParameters, this.resolver, merged);
      readParameters(this.operation.parameters, this.resolver, merged);
      this.mergedParameters = [...merged.values()];
    }
    return this.mergedParameters;
  }

  get security(): Record<string, string[]>[] | undefined {
    this.effectiveSecurity ??= { value: readSecurity(this.operation.security) ?? readSecurity(this.documentSecurity) };
    return this.effectiveSecurity.value;
  }
}

/** The upper-case method for a path item key that names an operation (HTTP_METHODS), else undefined. */
function operationMethod(key: string): string | undefined {
  switch (key) {
    case "get":
      return "GET";
    case "put":
      return "PUT";
    case "post":
      return "POST";
    case "delete":
      return "DELETE";
    case "options":
      return "OPTIONS";
    case "head":
      return "HEAD";
    case "patch":
      return "PATCH";
    case "trace":
      return "TRACE";
    case "query":
      return "QUERY";
    default:
      return undefined;
  }
}

class IndexBuilder {
  readonly operations: IndexedOperation[] = [];
  readonly byFullKey = new Map<string, IndexedOperation>();
  readonly byLocalKey = new Map<string, IndexedOperation[]>();

  constructor(
    private readonly resolver: RefResolver,
    private readonly documentSecurity: unknown,
  ) {}

  add(
    upper: string,
    path: string,
    localPath: string,
    fullPath: string,
    rawOperation: unknown,
    pathParameters: unknown,
  ): void {
    if (!isRecord(rawOperation)) return;
    const fullKey = `${upper} ${fullPath}`;
    const localKey = fullPath === localPath ? fullKey : `${upper} ${localPath}`;
    const indexed = new LazyOperation(
      upper,
      path,
      fullKey,
      localKey,
      localPath,
      fullPath,
      rawOperation,
      pathParameters,
      this.resolver,
      this.documentSecurity,
    );
    this.operations.push(indexed);
    if (!this.byFullKey.has(fullKey)) this.byFullKey.set(fullKey, indexed);
    const sameLocal = this.byLocalKey.get(localKey);
    if (sameLocal) sameLocal.push(indexed);
    else this.byLocalKey.set(localKey, [indexed]);
  }
}

keepLayout(new LazyOperation("GET", "/", "GET /", "GET /", "/", "/", {}, undefined, new RefResolver({}), undefined));
keepLayout(new IndexBuilder(new RefResolver({}), undefined));

function buildIndex(document: OpenApiDocument): DocumentIndex {
  const resolver = validatedResolvers.get(document) ?? new RefResolver(document);
  validatedResolvers.delete(document);
  const basePath = serverBasePath(document);
  const builder = new IndexBuilder(resolver, document.security);
  const paths = isRecord(document.paths) ? document.paths : {};

  for (const path in paths) {
    const item = resolver.deref(paths[path]);
    if (!isRecord(item)) continue;
    const localPath = canonicalPath(path);
    const fullPath = basePath === "" ? localPath : canonicalPath(basePath + path);
    // The item's own keys rather than a probe per method: a path item has a handful of keys.
    for (const key in item) {
      const upper = operationMethod(key);
      if (upper !== undefined) builder.add(upper, path, localPath, fullPath, item[key], item.parameters);
    }
    const additional = item.additionalOperations;
    if (isRecord(additional))
      for (const method in additional)
        builder.add(method.toUpperCase(), path, localPath, fullPath, additional[method], item.parameters);
  }
  return {
    document,
    version: schemaVersion(document),
    basePath,
    resolver,
    operations: builder.operations,
    byFullKey: builder.byFullKey,
    byLocalKey: builder.byLocalKey,
  };
}

/** The index of `document`, built on first use and cached for the document object's lifetime. */
export function indexDocument(document: OpenApiDocument): DocumentIndex {
  let index = cache.get(document);
  if (!index) {
    index = buildIndex(document);
    cache.set(document, index);
  }
  return index;
}

export interface OperationPair {
  contract: IndexedOperation;
  snapshot: IndexedOperation;
}

export interface OperationMatching {
  pairs: OperationPair[];
  /** In the contract, not in the snapshot. */
  missing: IndexedOperation[];
  /** In the snapshot, not in the contract. */
  undocumented: IndexedOperation[];
}

/**
 * Pairs operations by method and canonical path: first with server base paths applied (so "/v1" in `servers`
 * equals "/v1" written in the paths), then, for what is left, by the template alone (the implementation runs
 * under another base path).
 */
export function matchOperations(contract: DocumentIndex, snapshot: DocumentIndex): OperationMatching {
  const pairs: OperationPair[] = [];
  const missing: IndexedOperation[] = [];
  const used = new Set<IndexedOperation>();
  const unmatched: IndexedOperation[] = [];
  for (const operation of contract.operations) {
    const candidate = snapshot.byFullKey.get(operation.fullKey);
    if (candidate && !used.has(candidate)) {
      used.add(candidate);
      pairs.push({ contract: operation, snapshot: candidate });
    } else {
      unmatched.push(operation);
    }
  }
  for (const operation of unmatched) {
    const candidate = snapshot.byLocalKey.get(operation.localKey)?.find((entry) => !used.has(entry));
    if (candidate) {
      used.add(candidate);
      pairs.push({ contract: operation, snapshot: candidate });
    } else {
      missing.push(operation);
    }
  }
  const undocumented = snapshot.operations.filter((operation) => !used.has(operation));
  return { pairs, missing, undocumented };
}
