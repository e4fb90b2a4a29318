/**
 * GitHub's REST API description (13 MB, 1223 operations, @octokit/openapi) through the real engine: parsed like
 * an upload, checked against a mutated copy, and its ~800 response examples validated. Runs in Node because the
 * document is too large to bundle into the workerd test pool; the engine is the same pure TypeScript.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConformanceConfig } from "../../src/engine/verdict/config";
import { parseOpenApiDocument } from "../../src/engine/load/document";
import { checkConformance } from "../../src/engine/engine";
import { escapeToken } from "../../src/engine/normalize/normalize-pointer";
import { createPayloadValidator } from "../../src/engine/payload/payload";
import { MAX_DOCUMENT_REFERENCES, RefResolver } from "../../src/engine/normalize/ref-resolver";
import { convertToJsonSchema } from "../../src/engine/payload/payload-schema";
import type { OpenApiDocument } from "../../src/engine/types";

const require = createRequire(import.meta.url);
const text = readFileSync(require.resolve("@octokit/openapi/generated/api.github.com.json"), "utf8");
type Json = Record<string, any>;
const METHODS = ["get", "put", "post", "delete", "patch"];

let contract: OpenApiDocument;
beforeAll(() => {
  const parsed = parseOpenApiDocument(text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems.slice(0, 5)));
  expect(parsed.operationCount).toBe(1223);
  contract = parsed.document;
});

function conformanceOnly() {
  return loadConformanceConfig({ "conformance.json": { rules: {} }, "constitution.json": { rules: {} } });
}

describe("GitHub's REST API description", () => {
  it("parses within the reference limits, with room to spare (10,460 $refs of 100,000; no reference to a reference)", () => {
    expect(parseOpenApiDocument(text).ok).toBe(true);
    const refs: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value !== "object" || value === null) return;
      const ref = (value as { $ref?: unknown }).$ref;
      if (typeof ref === "string") refs.push(ref);
      for (const child of Object.values(value)) walk(child);
    };
    const document = JSON.parse(text) as Json;
    walk(document);
    expect(refs.length).toBeGreaterThan(10_000);
    expect(refs.length).toBeLessThan(MAX_DOCUMENT_REFERENCES / 5);
    // Every target is a value, never another reference: GitHub uses none of the 32 links a chain may have.
    const resolver = new RefResolver(document);
    for (const ref of new Set(refs)) {
      const tokens = ref
        .slice(2)
        .split("/")
        .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
      const target = tokens.reduce<unknown>((node, token) => (node as Json)?.[token], document) as Json;
      expect(typeof target?.$ref, ref).not.toBe("string");
      expect(resolver.resolveRef(ref).ok).toBe(true);
    }
  });

  it("checked against an unchanged copy: no violations", () => {
    const copy = JSON.parse(text) as OpenApiDocument;
    const verdict = checkConformance(contract, copy, conformanceOnly());
    expect(verdict.violations).toEqual([]);
  });

  it("against a mutated copy (operations removed and added, status codes removed, property types changed): exactly the expected violations", () => {
    const snapshot = JSON.parse(text) as Json;
    const expected: string[] = [];
    const paths = Object.entries(snapshot.paths as Json);

    // Remove three operations from paths that keep other methods, and one whole single-operation path.
    const multi = paths.filter(([, item]) => METHODS.filter((method) => item[method]).length > 1).slice(0, 3);
    for (const [path, item] of multi) {
      const method = METHODS.find((candidate) => item[candidate]) as string;
      delete item[method];
      expected.push(`missing-operation ${method.toUpperCase()} ${path}`);
    }
    const single = paths.find(
      ([path, item]) =>
        !multi.some(([other]) => other === path) && METHODS.filter((method) => item[method]).length === 1,
    ) as [string, Json];
    const singleMethod = METHODS.find((method) => single[1][method]) as string;
    delete snapshot.paths[single[0]];
    expected.push(`missing-operation ${singleMethod.toUpperCase()} ${single[0]}`);

    // Add two operations.
    snapshot.paths["/arbiter/experiments"] = { get: { responses: { "200": { description: "ok" } } } };
    const withoutPatch = paths.find(([path, item]) => snapshot.paths[path] && !item.patch && item.get) as [
      string,
      Json,
    ];
    withoutPatch[1].patch = { parameters: withoutPatch[1].get.parameters, responses: { "204": { description: "ok" } } };
    expected.push("undocumented-operation GET /arbiter/experiments", `undocumented-operation PATCH ${withoutPatch[0]}`);

    // Remove a declared status code from three operations.
    const touched = new Set([...multi.map(([path]) => path), single[0], withoutPatch[0]]);
    let removed = 0;
    for (const [path, item] of paths) {
      if (removed === 3 || touched.has(path)) continue;
      const method = METHODS.find((candidate) => item[candidate]?.responses?.["404"]);
      if (!method) continue;
      delete item[method].responses["404"];
      expected.push(`missing-status-code ${method.toUpperCase()} ${path}#/responses/404`);
      touched.add(path);
      removed++;
    }

    // Change the type of a string property in three inline response schemas.
    let changed = 0;
    for (const [path, item] of paths) {
      if (changed === 3 || touched.has(path)) continue;
      for (const method of METHODS) {
        const schema = item[method]?.responses?.["200"]?.content?.["application/json"]?.schema;
        if (schema?.type !== "object" || !schema.properties) continue;
        const name = Object.keys(schema.properties).find(
          (key) =>
            schema.properties[key].type === "string" && !schema.properties[key].format && !schema.properties[key].enum,
        );
        if (!name) continue;
        schema.properties[name] = { type: "integer" };
        expected.push(
          `response-type ${method.toUpperCase()} ${path}#/responses/200/content/application~1json/schema/properties/${escapeToken(name)}`,
        );
        touched.add(path);
        changed++;
        break;
      }
    }
    expect(changed).toBe(3);

    const verdict = checkConformance(contract, snapshot, conformanceOnly());
    expect(verdict.violations.map(({ rule, location }) => `${rule} ${location}`).sort()).toEqual(expected.sort());
    expect(verdict.approved).toBe(false);
    expect(verdict.summary.map(({ rule, count }) => `${rule}:${count}`).sort()).toEqual([
      "missing-operation:4",
      "missing-status-code:3",
      "response-type:3",
      "undocumented-operation:2",
    ]);
  });

  it("its response examples: our verdict agrees with ajv's on the same converted schema for every example", () => {
    const document = contract as Json;
    const validator = createPayloadValidator();
    // ajv compiles each distinct converted schema once (responses share many), without its code optimizer, which
    // only tidies the generated code: what it accepts is the same, and compiling is most of this test's time.
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true, code: { optimize: false } });
    const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
    let checked = 0;
    let approved = 0;
    for (const [path, item] of Object.entries(document.paths as Json)) {
      for (const method of METHODS) {
        for (const [status, rawResponse] of Object.entries((item[method]?.responses ?? {}) as Json)) {
          if (!/^\d{3}$/.test(status)) continue;
          const response = rawResponse.$ref
            ? document.components.responses[rawResponse.$ref.split("/").pop()]
            : rawResponse;
          const media = response?.content?.["application/json"];
          if (!media?.schema) continue;
          for (const rawExample of Object.values((media.examples ?? {}) as Json)) {
            const example = rawExample.$ref
              ? document.components.examples[rawExample.$ref.split("/").pop()]
              : rawExample;
            if (example?.value === undefined) continue;
            const ours = validator.validate(contract, "github", {
              method,
              path,
              status: Number(status),
              payload: example.value,
              contentType: "application/json",
            });
            const usesFormats = ours.errors.some((error) => error.keyword === "format");
            if (usesFormats) continue; // ajv here does not assert formats; the comparison covers everything else
            const converted = convertToJsonSchema(contract, media.schema, "3.0", "response").schema;
            const key = JSON.stringify(converted);
            let check = compiled.get(key);
            if (!check) {
              check = ajv.compile(converted);
              compiled.set(key, check);
            }
            const theirs = check(example.value);
            expect({ path, method, status, approved: ours.approved }).toEqual({
              path,
              method,
              status,
              approved: theirs,
            });
            for (const error of ours.errors) expect(error.pointer === "" || error.pointer.startsWith("/")).toBe(true);
            checked++;
            if (ours.approved) approved++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(700);
    // GitHub's examples are not all valid against its own schemas; most are.
    expect(approved / checked).toBeGreaterThan(0.7);
    console.log(`GitHub examples: ${checked} validated, ${approved} conform, ${validator.buildCount} validators built`);
  });
});
