/**
 * Finds what a payload answers to: the operation for a method and a path (a template such as /orders/{id} or a
 * concrete path such as /orders/ord_1001, with or without the server base path), the response entry for a
 * status (exact code, then a range such as 2XX, then default), and the media type.
 */
import { canonicalPath, type DocumentIndex, type IndexedOperation } from "../normalize/normalize-document";
import { isRecord } from "../normalize/normalize-pointer";
import { mediaTypeFamily, pickMediaType } from "../diff/media-types";
import { contentOf, responsesOf } from "../diff/operation-parts";
import { matchSegment, parseSegmentTemplate, type SegmentTemplate } from "../normalize/segment-template";

interface Route {
  operation: IndexedOperation;
  segments: (string | SegmentTemplate | null)[];
  literals: number;
}

const routes = new WeakMap<DocumentIndex, Route[]>();
/** Resolved "METHOD path" lookups per document, so repeated validation of one endpoint skips the route scan. */
const resolved = new WeakMap<DocumentIndex, Map<string, IndexedOperation | null>>();
const MAX_RESOLVED = 1000;

function compileRoutes(index: DocumentIndex): Route[] {
  let list = routes.get(index);
  if (list) return list;
  list = index.operations.map((operation) => {
    const segments = canonicalPath(operation.path)
      .split("/")
      .slice(1)
      .map((segment) => {
        if (segment === "{}") return null;
        if (!segment.includes("{}")) return segment;
        // "{name}.{ext}": parameters inside a segment, matched in linear time (segment-template.ts).
        return parseSegmentTemplate(segment);
      });
    return { operation, segments, literals: segments.filter((segment) => typeof segment === "string").length };
  });
  routes.set(index, list);
  return list;
}

function matchesRoute(route: Route, method: string, parts: string[]): boolean {
  if (route.operation.method !== method || route.segments.length !== parts.length) return false;
  return route.segments.every((segment, position) => {
    const part = parts[position] ?? "";
    if (segment === null) return part !== "";
    if (typeof segment === "string") return segment === part;
    return matchSegment(segment, part) !== undefined;
  });
}

export function findOperation(index: DocumentIndex, method: string, rawPath: string): IndexedOperation | undefined {
  let cache = resolved.get(index);
  if (!cache) {
    cache = new Map();
    resolved.set(index, cache);
  }
  const key = `${method.toUpperCase()} ${rawPath}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const found = resolveOperation(index, method, rawPath);
  if (cache.size >= MAX_RESOLVED) cache.clear();
  cache.set(key, found ?? null);
  return found;
}

function resolveOperation(index: DocumentIndex, method: string, rawPath: string): IndexedOperation | undefined {
  const upper = method.toUpperCase();
  const path = (rawPath.split(/[?#]/)[0] ?? "").trim() || "/";
  const candidates = [path];
  if (index.basePath && (path === index.basePath || path.startsWith(`${index.basePath}/`)))
    candidates.push(path.slice(index.basePath.length) || "/");
  for (const candidate of candidates) {
    const template = index.byLocalKey.get(`${upper} ${canonicalPath(candidate)}`)?.[0];
    if (template) return template;
  }
  const list = compileRoutes(index);
  for (const candidate of candidates) {
    const parts = canonicalPath(candidate)
      .split("/")
      .slice(1)
      .map((part) => {
        try {
          return decodeURIComponent(part);
        } catch {
          return part;
        }
      });
    // The most specific template wins: /orders/summary before /orders/{id}.
    let best: Route | undefined;
    for (const route of list) {
      if (matchesRoute(route, upper, parts) && (!best || route.literals > best.literals)) best = route;
    }
    if (best) return best.operation;
  }
  return undefined;
}

export function findResponseKey(operation: IndexedOperation, status: number): string | undefined {
  const keys = Object.keys(responsesOf(operation));
  const code = String(status);
  return (
    keys.find((key) => key === code) ??
    keys.find((key) => key.toUpperCase() === `${code[0]}XX`) ??
    keys.find((key) => key === "default")
  );
}

export interface SelectedMediaType {
  mediaType: string;
  schema: unknown;
}

/** The response's JSON media type for `contentType` (or the best JSON one when none is given). */
export function findMediaType(
  index: DocumentIndex,
  response: unknown,
  contentType: string | undefined,
): { found?: SelectedMediaType; declared: string[] } {
  const content = contentOf(response, index.resolver);
  const declared = Object.keys(content);
  const key = contentType
    ? pickMediaType(content, contentType)
    : (declared.find((entry) => entry.split(";")[0]?.trim().toLowerCase() === "application/json") ??
      declared.find((entry) => mediaTypeFamily(entry) === "json"));
  if (key === undefined) return { declared };
  const entry = content[key];
  const schema = isRecord(entry) ? entry.schema : undefined;
  if (schema === undefined || (mediaTypeFamily(key) !== "json" && !key.includes("*"))) return { declared };
  return { found: { mediaType: key, schema }, declared };
}
