/**
 * Parameter values of a recorded request: path parameters read from the concrete path against the operation's
 * template, query and header values as sent, each turned from text into the type its schema asks for (a query
 * string carries "42", the schema says integer) before it is validated. Arrays come from repeated query keys or
 * a comma-separated value; object-valued parameters (deepObject and the like) are not read and not checked.
 */
import { isRecord } from "../normalize/normalize-pointer";
import type { RefResolver } from "../normalize/ref-resolver";
import { matchSegment, parseSegmentTemplate } from "../normalize/segment-template";

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function segmentsOf(path: string): string[] {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  return trimmed.split("/").slice(1);
}

/** Matches one template segment ("{id}", "{name}.{ext}", "orders") against a concrete one; the values it binds. */
function bindSegment(template: string, concrete: string, into: Record<string, string>): boolean {
  if (!template.includes("{")) return template === concrete;
  const parsed = parseSegmentTemplate(template);
  const values = matchSegment(parsed, concrete);
  if (!values) return false;
  parsed.parameters.forEach((name, position) => (into[name] = decode(values[position] ?? "")));
  return true;
}

/** The path parameter values of `path` (with or without the server base path) for `template`, or undefined. */
export function pathParameterValues(
  template: string,
  path: string,
  basePath: string,
): Record<string, string> | undefined {
  const wanted = segmentsOf(template);
  const candidates = [path];
  if (basePath && (path === basePath || path.startsWith(`${basePath}/`)))
    candidates.push(path.slice(basePath.length) || "/");
  for (const candidate of candidates) {
    const parts = segmentsOf(candidate);
    if (parts.length !== wanted.length) continue;
    const values: Record<string, string> = Object.create(null) as Record<string, string>;
    if (wanted.every((segment, position) => bindSegment(segment, parts[position] ?? "", values))) return values;
  }
  return undefined;
}

function typesOf(schema: unknown): string[] {
  if (!isRecord(schema)) return [];
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((type): type is string => typeof type === "string");
  return [];
}

function scalar(text: string, schema: unknown): unknown {
  const types = typesOf(schema);
  if ((types.includes("integer") || types.includes("number")) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text.trim()))
    return Number(text);
  if (types.includes("boolean") && (text === "true" || text === "false")) return text === "true";
  if (types.includes("null") && text === "" && !types.includes("string")) return null;
  return text;
}

/** The value a parameter's schema can validate, or undefined when the parameter is object-valued (not checked). */
export function typedValue(values: readonly string[], rawSchema: unknown, resolver: RefResolver): unknown {
  const schema = resolver.deref(rawSchema);
  const types = typesOf(schema);
  if (types.includes("object")) return undefined;
  if (types.includes("array")) {
    const items = isRecord(schema) ? resolver.deref(schema.items) : undefined;
    const list = values.length === 1 ? (values[0] ?? "").split(",") : values;
    return list.map((value) => scalar(value, items));
  }
  return scalar(values[values.length - 1] ?? "", schema);
}
