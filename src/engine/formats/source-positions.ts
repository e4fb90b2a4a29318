/**
 * Where a violation sits in the uploaded file: its location ("GET /orders/{id}#/responses/200", or a document
 * pointer) mapped back to a line and column of the JSON or YAML text, so SARIF, GitHub annotations and the
 * Markdown point at the line that broke the contract instead of line 1. The `yaml` package parses JSON too (YAML
 * is a superset) and gives every node its source range.
 *
 * An operation is found in the file by method and path template (parameter names may differ from the
 * contract's: `{id}` matches `{orderId}`); a pointer the file does not have (a response the implementation lacks)
 * lands on the deepest part it has, at worst the operation, at worst line 1. Files above MAX_LOCATED_BYTES are
 * not parsed again: their results keep line 1.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from "yaml";

export interface SourceRegion {
  startLine: number;
  startColumn: number;
}

export type ViolationLocator = (location: string) => SourceRegion | undefined;

/** Parsing again costs about what the upload's parse did; beyond this the positions are not worth the memory. */
export const MAX_LOCATED_BYTES = 4 * 1024 * 1024;

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace", "query"]);

function unescapeSegment(segment: string): string {
  return decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~");
}

function pointerSegments(pointer: string): string[] {
  const bare = pointer.replace(/^#/, "");
  return bare === "" || bare === "/" ? [] : bare.replace(/^\//, "").split("/").map(unescapeSegment);
}

const template = (path: string) => path.replace(/\{[^}/]*\}/g, "{}");

interface Step {
  /** The node reached, and the source node that best marks it (a mapping's key). */
  node: unknown;
  mark: YamlNode | undefined;
}

function child(node: unknown, segment: string): Step | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (isPair(pair) && isScalar(pair.key) && String(pair.key.value) === segment)
        return { node: pair.value, mark: pair.key as YamlNode };
    }
    return undefined;
  }
  if (isSeq(node) && /^\d+$/.test(segment)) {
    const item = node.items[Number(segment)];
    return item === undefined ? undefined : { node: item, mark: item as YamlNode };
  }
  return undefined;
}

/** The path key of the file that names the same operation as `label` ("GET /orders/{id}"). */
function operationSegments(root: unknown, label: string): string[] | undefined {
  const space = label.indexOf(" ");
  const method = label.slice(0, space).toLowerCase();
  const path = label.slice(space + 1);
  if (!METHODS.has(method)) return undefined;
  const paths = child(root, "paths")?.node;
  if (!isMap(paths)) return undefined;
  let found: string | undefined;
  for (const pair of paths.items) {
    if (!isPair(pair) || !isScalar(pair.key)) continue;
    const key = String(pair.key.value);
    if (key === path) {
      found = key;
      break;
    }
    if (found === undefined && template(key) === template(path)) found = key;
  }
  return found === undefined ? undefined : ["paths", found, method];
}

/** A locator over `text`, or undefined when the text is too large or not a document the parser reads. */
export function violationLocator(text: string): ViolationLocator | undefined {
  if (text.length > MAX_LOCATED_BYTES) return undefined;
  const lineCounter = new LineCounter();
  let root: unknown;
  try {
    const document = parseDocument(text, { lineCounter, keepSourceTokens: false, uniqueKeys: false });
    root = document.contents;
  } catch {
    return undefined;
  }
  const position = (node: YamlNode | undefined): SourceRegion | undefined => {
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { startLine: line, startColumn: col };
  };
  return (location) => {
    const hash = location.indexOf("#");
    const head = hash < 0 ? location : location.slice(0, hash);
    const pointer = hash < 0 ? "" : location.slice(hash + 1);
    let segments: string[];
    if (/^[A-Z]+ \//.test(head)) {
      const operation = operationSegments(root, head);
      if (!operation) return undefined;
      segments = [...operation, ...pointerSegments(pointer)];
    } else {
      segments = pointerSegments(hash < 0 ? location : pointer);
    }
    let node = root;
    let best: SourceRegion | undefined;
    for (const segment of segments) {
      const step = child(node, segment);
      if (!step) break;
      node = step.node;
      best = position(step.mark) ?? best;
    }
    return best;
  };
}

/**
 * The locator of an uploaded file, parsed on first use: answers that render no format with locations (the
 * plain JSON answer) never pay for the second parse.
 */
export function lazyLocator(bytes: Uint8Array): ViolationLocator {
  let located: ViolationLocator | undefined | null = null;
  return (location) => {
    if (located === null)
      located = bytes.byteLength > MAX_LOCATED_BYTES ? undefined : violationLocator(new TextDecoder().decode(bytes));
    return located?.(location);
  };
}
