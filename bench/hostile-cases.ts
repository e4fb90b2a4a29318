/**
 * The four worst cases of issue 22, as a contract plus recorded exchanges that stay inside every stated upload
 * limit (5,000 exchanges, 1 MiB per body, 15 MiB per upload). Shared by bench/hostile-validation.bench.ts (engine
 * alone, before/after) and bench/tenant-isolation.bench.ts (the same uploads over wrangler dev).
 */
type Json = Record<string, unknown>;

export interface HostileCase {
  name: string;
  contract: Json;
  /** NDJSON lines of recorded exchanges. */
  exchanges: Json[];
  /** One payload for validate_response_payload: operation path, status and body. */
  payload: { method: string; path: string; status: number; payload: unknown };
}

function contract(paths: Json, schemas: Json = {}): Json {
  return { openapi: "3.1.0", info: { title: "hostile", version: "1" }, paths, components: { schemas } };
}

function jsonResponse(schema: unknown): Json {
  return { "200": { description: "ok", content: { "application/json": { schema } } } };
}

/** uniqueItems on 160,000 distinct integers: the validator compares every pair. */
function uniqueItems(): HostileCase {
  const body = Array.from({ length: 160_000 }, (_, index) => index);
  return {
    name: "uniqueItems on 160,000 integers",
    contract: contract({
      "/numbers": {
        get: { responses: jsonResponse({ type: "array", uniqueItems: true, items: { type: "integer" } }) },
      },
    }),
    exchanges: [
      {
        method: "GET",
        path: "/numbers",
        status: 200,
        responseHeaders: { "content-type": "application/json" },
        responseBody: JSON.stringify(body),
      },
    ],
    payload: { method: "GET", path: "/numbers", status: 200, payload: body },
  };
}

/** `^(a+)+$` against 32 characters that do not match: exponential backtracking in a backtracking engine. */
function nestedQuantifier(): HostileCase {
  const value = `${"a".repeat(31)}!`;
  return {
    name: "pattern ^(a+)+$ vs a 32-character string",
    contract: contract({
      "/names": {
        get: {
          responses: jsonResponse({ type: "object", properties: { name: { type: "string", pattern: "^(a+)+$" } } }),
        },
      },
    }),
    exchanges: [
      {
        method: "GET",
        path: "/names",
        status: 200,
        responseHeaders: { "content-type": "application/json" },
        responseBody: JSON.stringify({ name: value }),
      },
    ],
    payload: { method: "GET", path: "/names", status: 200, payload: { name: value } },
  };
}

/** Twelve parameters in one path segment, and a concrete segment that fails only at its end. */
function packedSegment(): HostileCase {
  const names = Array.from({ length: 12 }, (_, index) => `p${index}`);
  const template = `/files/${names.map((name) => `{${name}}`).join("")}.json`;
  const parameters = names.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }));
  const concrete = `/files/${"x".repeat(60)}.jsonx`;
  return {
    name: "12 parameters packed in one path segment",
    contract: contract({ [template]: { get: { parameters, responses: jsonResponse({ type: "object" }) } } }),
    exchanges: Array.from({ length: 5 }, () => ({
      method: "GET",
      path: concrete,
      status: 200,
      responseHeaders: { "content-type": "application/json" },
      responseBody: "{}",
    })),
    payload: { method: "GET", path: concrete, status: 200, payload: {} },
  };
}

/** 5,000 exchanges, each an array of objects checked against a 20-way oneOf that every item fails. */
function wideOneOf(): HostileCase {
  const branches = Array.from({ length: 20 }, (_, index) => ({
    type: "object",
    required: [`k${index}`],
    properties: { [`k${index}`]: { type: "integer" }, note: { type: "string", maxLength: 4 } },
  }));
  const items = Array.from({ length: 80 }, (_, index) => ({ note: `item ${index}`, extra: index }));
  const body = JSON.stringify(items);
  return {
    name: "5,000 exchanges vs a 20-way oneOf",
    contract: contract(
      {
        "/items": { get: { responses: jsonResponse({ type: "array", items: { $ref: "#/components/schemas/Item" } }) } },
      },
      { Item: { oneOf: branches } },
    ),
    exchanges: Array.from({ length: 5000 }, () => ({
      method: "GET",
      path: "/items",
      status: 200,
      responseHeaders: { "content-type": "application/json" },
      responseBody: body,
    })),
    payload: { method: "GET", path: "/items", status: 200, payload: items },
  };
}

/** One response value as a case: the same body as one recorded exchange and as a payload. */
function single(name: string, schema: unknown, body: unknown): HostileCase {
  return {
    name,
    contract: contract({ "/thing": { get: { responses: jsonResponse(schema) } } }),
    exchanges: [
      {
        method: "GET",
        path: "/thing",
        status: 200,
        responseHeaders: { "content-type": "application/json" },
        responseBody: JSON.stringify(body),
      },
    ],
    payload: { method: "GET", path: "/thing", status: 200, payload: body },
  };
}

/** A 13-character pattern that RE2 accepts but compiles to a ~2,000-instruction program, against 160 KB. */
function bigProgram(): HostileCase {
  return single(
    "pattern [a-z]{1,999}0 vs a 160 KB string",
    { type: "string", pattern: "[a-z]{1,999}0" },
    "a".repeat(160_000),
  );
}

const manyKeys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, "v"]));

/** dependentSchemas: 300 names present in a 10,000-key object, each re-validating the whole object. */
function dependentSchemas(): HostileCase {
  const dependent = Object.fromEntries(
    Array.from({ length: 300 }, (_, index) => [`k${index}`, { additionalProperties: { type: "string" } }]),
  );
  return single(
    "dependentSchemas: 300 names over 10,000 keys",
    { type: "object", dependentSchemas: dependent },
    manyKeys(10_000),
  );
}

/** patternProperties: 1,000 one-quantifier patterns tested against each of 10,000 property names. */
function manyPatternProperties(): HostileCase {
  const patterns = Object.fromEntries(
    Array.from({ length: 1000 }, (_, index) => [`^p${index}[0-9]*$`, { type: "string" }]),
  );
  return single(
    "patternProperties: 1,000 patterns over 10,000 keys",
    { type: "object", patternProperties: patterns },
    manyKeys(10_000),
  );
}

/** required: 1,000 names missing from each of 3,000 items (3 million errors if all are collected). */
function manyRequired(): HostileCase {
  const names = Array.from({ length: 1000 }, (_, index) => `r${index}`);
  return single(
    "required: 1,000 names over 3,000 items",
    { type: "array", items: { type: "object", required: names } },
    Array.from({ length: 3000 }, () => ({})),
  );
}

export const HOSTILE_CASES: readonly (() => HostileCase)[] = [
  uniqueItems,
  nestedQuantifier,
  packedSegment,
  wideOneOf,
  bigProgram,
  dependentSchemas,
  manyPatternProperties,
  manyRequired,
];

export function ndjsonOf(exchanges: readonly Json[]): string {
  return `${exchanges.map((exchange) => JSON.stringify(exchange)).join("\n")}\n`;
}
