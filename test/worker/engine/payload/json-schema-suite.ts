/**
 * Runs the official JSON-Schema-Test-Suite (vendored under test/fixtures/json-schema-test-suite, see its NOTICE)
 * through payload validation's own path: each test schema becomes the 200 response schema of a one-operation
 * OpenAPI document, which is parsed and checked like an upload (parseOpenApiDocument) and then validated with
 * createPayloadValidator, exactly as `validate_response_payload` does.
 *
 * - draft2020-12 through an OpenAPI 3.1 contract: the schema is components.schemas.S, given the `$id`
 *   "https://suite.arbiter.invalid/schema.json" when it has none, so its "#..." references mean its own root
 *   as they do in the suite (references resolve through `$id` bases, as OpenAPI 3.1 reads them).
 * - draft4 through an OpenAPI 3.0 contract: 3.0 has no `$id`, so "#..." references are rebased onto
 *   #/components/schemas/S (what a bundler does); only cases 3.0's Schema Object can express are run.
 */
import { parseOpenApiDocument } from "../../../../src/engine/load/document";
import { createPayloadValidator } from "../../../../src/engine/payload/payload";

export interface SuiteCase {
  file: string;
  group: string;
  test: string;
  schema: unknown;
  data: unknown;
  valid: boolean;
}

export type Outcome = { kind: "agree" } | { kind: "disagree"; detail: string } | { kind: "excluded"; reason: string };

export function casesOf(files: Record<string, string>): SuiteCase[] {
  const cases: SuiteCase[] = [];
  for (const [path, text] of Object.entries(files)) {
    const file = path.split("/").slice(-2).join("/");
    for (const group of JSON.parse(text) as {
      description: string;
      schema: unknown;
      tests: { description: string; data: unknown; valid: boolean }[];
    }[]) {
      for (const test of group.tests)
        cases.push({
          file,
          group: group.description,
          test: test.description,
          schema: group.schema,
          data: test.data,
          valid: test.valid,
        });
    }
  }
  return cases;
}

const BASE_ID = "https://suite.arbiter.invalid/schema.json";
const SCHEMA_POINTER = "#/components/schemas/S";
/** Keywords whose values are data: a `$ref` inside them is not a reference. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "example"]);

function documentFor(schema: unknown, version: "3.1.0" | "3.0.3"): string {
  const wrapped =
    version === "3.1.0" && typeof schema === "object" && schema !== null && !("$id" in schema)
      ? { $id: BASE_ID, ...schema }
      : version === "3.0.3"
        ? rebase(schema)
        : schema;
  return JSON.stringify({
    openapi: version,
    info: { title: "JSON-Schema-Test-Suite case", version: "1" },
    paths: {
      "/case": {
        get: {
          responses: {
            "200": { description: "case", content: { "application/json": { schema: { $ref: SCHEMA_POINTER } } } },
          },
        },
      },
    },
    components: { schemas: { S: wrapped } },
  });
}

/** "#..." references rebased onto the schema's place in the document (3.0 has no `$id` to do it). */
function rebase(value: unknown, data = false): unknown {
  if (Array.isArray(value)) return value.map((item) => rebase(item, data));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const rebased =
      !data && key === "$ref" && typeof child === "string" && child.startsWith("#")
        ? `${SCHEMA_POINTER}${child.slice(1)}`
        : rebase(child, data || DATA_KEYWORDS.has(key));
    Object.defineProperty(out, key, { value: rebased, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Keywords of draft 4 that OpenAPI 3.0's Schema Object does not have. */
const NOT_IN_OPENAPI_30 = ["patternProperties", "dependencies", "additionalItems", "id", "$schema"];

/** Why a draft-4 schema cannot be written as an OpenAPI 3.0 Schema Object, or undefined. */
export function notExpressibleIn30(schema: unknown, data = false): string | undefined {
  if (Array.isArray(schema)) {
    for (const item of schema) {
      const reason = notExpressibleIn30(item, data);
      if (reason) return reason;
    }
    return undefined;
  }
  if (typeof schema !== "object" || schema === null || data) return undefined;
  const record = schema as Record<string, unknown>;
  for (const keyword of NOT_IN_OPENAPI_30)
    if (keyword in record && keyword !== "$schema")
      return `uses "${keyword}", which OpenAPI 3.0's Schema Object does not have`;
  if (Array.isArray(record.type)) return "a type array (OpenAPI 3.0 takes one type)";
  if (record.type === "null") return 'type "null" (OpenAPI 3.0 writes nullable instead)';
  if (Array.isArray(record.items)) return "items as an array (tuples are not in OpenAPI 3.0)";
  if (typeof record.$ref === "string" && !record.$ref.startsWith("#"))
    return "refers to another document (refused at upload by design)";
  for (const [key, child] of Object.entries(record)) {
    if (key === "properties" || key === "definitions") {
      for (const member of Object.values((child ?? {}) as Record<string, unknown>)) {
        const reason = notExpressibleIn30(member);
        if (reason) return reason;
      }
      continue;
    }
    const reason = notExpressibleIn30(child, DATA_KEYWORDS.has(key));
    if (reason) return reason;
  }
  return undefined;
}

export function runCase(testCase: SuiteCase, version: "3.1.0" | "3.0.3", key: string): Outcome {
  const parsed = parseOpenApiDocument(documentFor(testCase.schema, version));
  if (!parsed.ok) {
    const message = parsed.problems.map((problem) => problem.message).join("; ");
    // References to other documents are refused at upload by design.
    if (/external \$ref/.test(message))
      return { kind: "excluded", reason: "refers to another document (refused at upload by design)" };
    return { kind: "disagree", detail: `contract refused: ${message}` };
  }
  const verdict = createPayloadValidator().validate(parsed.document, key, {
    method: "GET",
    path: "/case",
    status: 200,
    contentType: "application/json",
    payload: testCase.data,
  });
  if (verdict.violations.length > 0)
    return {
      kind: "disagree",
      detail: `not validated: ${verdict.violations.map((violation) => violation.message).join("; ")}`,
    };
  return verdict.approved === testCase.valid
    ? { kind: "agree" }
    : {
        kind: "disagree",
        detail: `expected ${testCase.valid ? "valid" : "invalid"}, got ${verdict.approved ? "valid" : JSON.stringify(verdict.errors.slice(0, 2))}`,
      };
}
