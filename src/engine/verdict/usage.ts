/**
 * The usage index ("is this break used?"): what recorded traffic exercised, counted, never a value. A count names an
 * operation of the contract ("GET /orders/{}", path parameters unnamed), a status ("" for the request side) and a
 * field: "" for the operation or the status itself, `parameter:<in>:<name>` for a query or header parameter sent,
 * `request:<path>` and `response:<path>` for a property path present in a JSON body (`/total`, `/lines/*\/sku`:
 * array items as `*`). Recordings carry credentials and personal data: names of declared parameters and property
 * paths whose every name the contract declares are all that is counted (an undeclared query parameter or body key
 * is not, since a name can itself be data).
 *
 * Evidence for a finding: its location names the operation and, where it can tell, the status, the parameter or the
 * property the break touches; `usageEvidence` turns the counts into what verdicts say.
 */
import { canonicalPath, type DocumentIndex } from "../normalize/normalize-document";
import type { RecordedExchange } from "../exchanges/exchange";
import type { UsageEvidence } from "../types";
import { findOperation } from "../payload/payload-route";

export interface UsageCount {
  operation: string;
  status: string;
  field: string;
  count: number;
}

/** The window evidence covers, by default. */
export const USAGE_WINDOW_DAYS = 30;
/** Property paths counted per body, and how deep. */
const MAX_PATHS_PER_BODY = 200;
const MAX_DEPTH = 8;
/** Distinct counts one upload may add (the ingest route refuses more; recorded traffic stops counting new keys). */
export const MAX_USAGE_COUNTS = 5000;

const key = (operation: string, status: string, field: string) => `${operation}\n${status}\n${field}`;

/** "GET /orders/{id}" -> "GET /orders/{}"; null when it is not "METHOD /path". */
export function usageOperation(label: string): string | null {
  const match = /^([A-Z]+) (\/\S*)$/.exec(label);
  return match ? `${match[1]} ${canonicalPath(match[2]!)}` : null;
}

/** A JSON pointer step as written in property paths ("/" and "~" escaped as in JSON pointers). */
const step = (name: string) => name.replace(/~/g, "~0").replace(/\//g, "~1");

const declaredCache = new WeakMap<object, ReadonlySet<string>>();

/**
 * Every property name the contract declares somewhere (the keys of its `properties` objects). A body's key is counted
 * only when it is one of them: a map keyed by data (`{"ana@example.com": ...}`, order ids) has keys the contract
 * cannot name, and a key can itself be personal data.
 */
function declaredNames(document: object): ReadonlySet<string> {
  let names = declaredCache.get(document);
  if (names) return names;
  const found = new Set<string>();
  const seen = new WeakSet<object>();
  const walk = (value: unknown) => {
    if (value === null || typeof value !== "object" || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
      return;
    }
    const properties = (value as Record<string, unknown>).properties;
    if (properties !== null && typeof properties === "object" && !Array.isArray(properties))
      for (const name of Object.keys(properties)) found.add(name);
    for (const child of Object.values(value)) walk(child);
  };
  walk(document);
  names = found;
  declaredCache.set(document, names);
  return names;
}

function propertyPaths(
  value: unknown,
  prefix: string,
  depth: number,
  declared: ReadonlySet<string>,
  into: Set<string>,
): void {
  if (depth > MAX_DEPTH || into.size >= MAX_PATHS_PER_BODY || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (const item of value) propertyPaths(item, `${prefix}/*`, depth + 1, declared, into);
    return;
  }
  for (const [name, child] of Object.entries(value)) {
    if (into.size >= MAX_PATHS_PER_BODY) return;
    if (!declared.has(name)) continue;
    const path = `${prefix}/${step(name)}`;
    into.add(path);
    propertyPaths(child, path, depth + 1, declared, into);
  }
}

function jsonPaths(
  body: string | undefined,
  contentType: string | undefined,
  declared: ReadonlySet<string>,
): Set<string> {
  const paths = new Set<string>();
  if (body === undefined || body === "" || (contentType && !/json/i.test(contentType))) return paths;
  try {
    propertyPaths(JSON.parse(body), "", 0, declared, paths);
  } catch {
    // A body that is not JSON has no property paths to count.
  }
  return paths;
}

/** Counts what the exchanges exercised of the contract indexed by `index`; exchanges matching no operation are skipped. */
export function countExchangeUsage(index: DocumentIndex, exchanges: readonly RecordedExchange[]): UsageCount[] {
  const counts = new Map<string, UsageCount>();
  const add = (operation: string, status: string, field: string) => {
    const id = key(operation, status, field);
    const found = counts.get(id);
    if (found) found.count++;
    else if (counts.size < MAX_USAGE_COUNTS) counts.set(id, { operation, status, field, count: 1 });
  };
  const declared = declaredNames(index.document);
  for (const exchange of exchanges) {
    const question = exchange.target.indexOf("?");
    const path = question < 0 ? exchange.target : exchange.target.slice(0, question);
    const operation = findOperation(index, exchange.method, path);
    if (!operation) continue;
    const name = `${operation.method} ${operation.localPath}`;
    const status = String(exchange.status);
    add(name, "", "");
    add(name, status, "");
    const query = new URLSearchParams(question < 0 ? "" : exchange.target.slice(question + 1));
    for (const parameter of operation.parameters) {
      const sent =
        parameter.in === "query"
          ? query.has(parameter.name)
          : parameter.in === "header"
            ? parameter.name.toLowerCase() in exchange.requestHeaders
            : false;
      if (sent) add(name, "", `parameter:${parameter.in}:${parameter.name}`);
    }
    for (const field of jsonPaths(exchange.requestBody, exchange.requestContentType, declared))
      add(name, "", `request:${field}`);
    for (const field of jsonPaths(exchange.responseBody, exchange.responseContentType, declared))
      add(name, status, `response:${field}`);
  }
  return [...counts.values()];
}

/**
 * What a finding at `location` touches, as a usage key: the operation, and the status and field where the pointer
 * tells (a response property, a request property, a parameter, a status). Schema steps of composition
 * (`oneOf/1`, `allOf/0`) are skipped; `items` becomes `*`.
 */
export function usageTarget(
  location: string,
): { operation: string; status: string; field: string; what: string } | null {
  const hash = location.indexOf("#");
  const operation = usageOperation(hash < 0 ? location : location.slice(0, hash));
  if (!operation) return null;
  const pointer = hash < 0 ? "" : location.slice(hash + 1);
  const parts = pointer.split("/").slice(1);
  if (parts[0] === "parameters" && (parts[1] === "query" || parts[1] === "header") && parts[2])
    return {
      operation,
      status: "",
      field: `parameter:${parts[1]}:${parts[2]}`,
      what: `${parts[1]} parameter ${parts[2]}`,
    };
  const schemaAt = parts.indexOf("schema");
  const property = schemaAt < 0 ? "" : schemaPath(parts.slice(schemaAt + 1));
  if (parts[0] === "responses" && parts[1] && /^\d{3}$/.test(parts[1])) {
    if (property)
      return {
        operation,
        status: parts[1],
        field: `response:${property}`,
        what: `responses ${parts[1]} carrying ${property}`,
      };
    return { operation, status: parts[1], field: "", what: `responses ${parts[1]}` };
  }
  if (parts[0] === "requestBody" && property)
    return { operation, status: "", field: `request:${property}`, what: `requests sending ${property}` };
  return { operation, status: "", field: "", what: "" };
}

const COMPOSITION = new Set(["oneOf", "anyOf", "allOf"]);

/** Schema pointer steps to a property path: properties/a/items/properties/b -> /a/*\/b; "" when it names none. */
function schemaPath(steps: string[]): string {
  let path = "";
  for (let i = 0; i < steps.length; i++) {
    const part = steps[i]!;
    if (part === "properties" && steps[i + 1] !== undefined) {
      path += `/${steps[++i]}`;
    } else if (part === "items") {
      path += "/*";
    } else if (COMPOSITION.has(part)) {
      i++;
    } else break;
  }
  return path;
}

/** Counts summed over the window, by usage key (what the store answers for a verdict's operations). */
export type UsageTotals = ReadonlyMap<string, number>;

export function usageTotals(counts: readonly UsageCount[]): UsageTotals {
  const totals = new Map<string, number>();
  for (const count of counts) {
    const id = key(count.operation, count.status, count.field);
    totals.set(id, (totals.get(id) ?? 0) + count.count);
  }
  return totals;
}

/** The evidence for a finding at `location`, or undefined when its location names no operation. */
export function usageEvidence(location: string, totals: UsageTotals, days: number): UsageEvidence | undefined {
  const target = usageTarget(location);
  if (!target) return undefined;
  const exchanges = totals.get(key(target.operation, "", "")) ?? 0;
  const evidence: UsageEvidence = { days, exchanges };
  if (target.what && (target.status !== "" || target.field !== ""))
    evidence.touched = {
      what: target.what,
      count: totals.get(key(target.operation, target.status, target.field)) ?? 0,
    };
  return evidence;
}

/** How every format says it: "1,240 recorded exchanges of GET /orders/{id} in the last 30 days, 1,240 of them responses 200 carrying /total". */
export function describeUsage(operation: string, usage: UsageEvidence): string {
  const n = (value: number) => value.toLocaleString("en-US");
  if (usage.exchanges === 0) return `never seen in the recorded traffic of the last ${usage.days} days`;
  const base = `${n(usage.exchanges)} recorded exchange${usage.exchanges === 1 ? "" : "s"} of ${operation} in the last ${usage.days} days`;
  return usage.touched ? `${base}, ${n(usage.touched.count)} of them ${usage.touched.what}` : base;
}
