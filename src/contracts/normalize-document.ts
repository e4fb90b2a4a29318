/**
 * Indexes an OpenAPI document for comparison: every operation with a canonical key that ignores path parameter
 * names, trailing slashes and where the server base path is written, its parameters merged from the path item,
 * and its effective security. Indexes are cached per document object, so a document checked twice is indexed once.
 */
import { HTTP_METHODS } from "./document-checks";
import { escapeToken, isRecord, RefResolver } from "./normalize-pointer";
import type { OpenApiDocument } from "./types";

export interface IndexedParameter {
  name: string;
  in: string;
  required: boolean;
  schema: unknown;
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
    if (schema === undefined && isRecord(parameter.content)) {
      const first = Object.values(parameter.content)[0];
      schema = isRecord(first) ? first.schema : undefined;
    }
    into.set(`${location}:${name}`, {
      name: parameter.name,
      in: location,
      required: parameter.required === true,
      schema,
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

  constructor(
    readonly method: string,
    readonly path: string,
    readonly label: string,
    readonly fullKey: string,
    readonly localKey: string,
    readonly operation: Record<string, unknown>,
    readonly pathParameters: unknown,
    private readonly resolver: RefResolver,
    private readonly documentSecurity: unknown,
  ) {}

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

function buildIndex(document: OpenApiDocument): DocumentIndex {
  const resolver = new RefResolver(document);
  const basePath = serverBasePath(document);
  const operations: IndexedOperation[] = [];
  const byFullKey = new Map<string, IndexedOperation>();
  const byLocalKey = new Map<string, IndexedOperation[]>();
  const paths = isRecord(document.paths) ? document.paths : {};

  for (const path in paths) {
    const item = resolver.deref(paths[path]);
    if (!isRecord(item)) continue;
    const localPath = canonicalPath(path);
    const fullPath = basePath === "" ? localPath : canonicalPath(basePath + path);
    const methods: [string, unknown][] = [];
    for (const method of HTTP_METHODS) if (item[method] !== undefined) methods.push([method, item[method]]);
    if (isRecord(item.additionalOperations)) methods.push(...Object.entries(item.additionalOperations));
    for (const [method, rawOperation] of methods) {
      if (!isRecord(rawOperation)) continue;
      const upper = method.toUpperCase();
      const fullKey = `${upper} ${fullPath}`;
      const localKey = `${upper} ${localPath}`;
      const indexed = new LazyOperation(upper, path, `${upper} ${path}`, fullKey, localKey, rawOperation, item.parameters, resolver, document.security);
      operations.push(indexed);
      if (!byFullKey.has(fullKey)) byFullKey.set(fullKey, indexed);
      const sameLocal = byLocalKey.get(localKey);
      if (sameLocal) sameLocal.push(indexed);
      else byLocalKey.set(localKey, [indexed]);
    }
  }
  return { document, version: schemaVersion(document), basePath, resolver, operations, byFullKey, byLocalKey };
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
