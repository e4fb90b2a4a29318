/**
 * What an upload may cost, over the REST upload at the REST handler (harness.ts): a 5,000-link `$ref` chain and a fan-out past
 * the reference limit are refused with a 422 naming the limit; a wide fan-out under the limit and a "diamond"
 * (two properties referring to the same next schema, 40 levels deep: 2^40 paths to the bottom) are accepted with
 * a bounded verdict, and so is one shared schema changed under 2,000 operations (200,000 violations, counted,
 * MAX_LISTED_PER_RULE listed). Before the fixes the chain was accepted after seconds of resolution, the diamond
 * snapshot listed one violation per path (measured in Node: 262,145 violations at 18 levels, out of memory at 60),
 * and 5,000 operations over one changed 100-property schema needed 200 MB for a 0.7 MB upload.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_DOCUMENT_REFERENCES, MAX_REF_CHAIN_LINKS } from "../../../src/engine/normalize/ref-resolver";
import { MAX_CHANGES_PER_SCHEMA } from "../../../src/engine/diff/schema-diff";
import { MAX_LISTED_PER_RULE } from "../../../src/engine/verdict/verdict";
import { callJson } from "./api-helpers";
import { restPrincipal, type Caller } from "../harness";

let developer: Caller;

beforeAll(async () => {
  developer = restPrincipal("dev", "contracts.read contracts.write snapshots.write");
});

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function document(schemas: Record<string, unknown>, operations: string[]): string {
  const paths: Record<string, unknown> = {};
  operations.forEach((schema, index) => {
    paths[`/items${index}`] = {
      get: {
        operationId: `getItems${index}`,
        responses: { "200": { description: "ok", content: { "application/json": { schema: ref(schema) } } } },
      },
    };
  });
  return JSON.stringify({ openapi: "3.0.3", info: { title: "Costs", version: "1" }, paths, components: { schemas } });
}

function chain(links: number): string {
  const schemas: Record<string, unknown> = {};
  for (let index = 0; index < links; index++) schemas[`S${index}`] = ref(`S${index + 1}`);
  schemas[`S${links}`] = { type: "string" };
  return document(schemas, ["S0"]);
}

/** `width` schemas, each with 200 properties referring to the same 200 targets; the last target's type varies. */
function fanOut(width: number, leafType = "string"): string {
  const schemas: Record<string, unknown> = {};
  for (let target = 0; target < 200; target++)
    schemas[`T${target}`] = { type: "object", properties: { value: { type: target === 199 ? leafType : "string" } } };
  for (let index = 0; index < width; index++) {
    const properties: Record<string, unknown> = {};
    for (let target = 0; target < 200; target++) properties[`p${target}`] = ref(`T${target}`);
    schemas[`S${index}`] = { type: "object", properties };
  }
  return document(
    schemas,
    Array.from({ length: 20 }, (_, index) => `S${index}`),
  );
}

/** `operations` operations answering the same 100-property schema, each property of type `type`. */
function shared(operations: number, type: string): string {
  const properties: Record<string, unknown> = {};
  for (let index = 0; index < 100; index++) properties[`p${index}`] = { type };
  return document(
    { Shared: { type: "object", properties } },
    Array.from({ length: operations }, () => "Shared"),
  );
}

function diamond(levels: number, leafType: string): string {
  const schemas: Record<string, unknown> = {};
  for (let index = 0; index < levels; index++)
    schemas[`D${index}`] = { type: "object", properties: { left: ref(`D${index + 1}`), right: ref(`D${index + 1}`) } };
  schemas[`D${levels}`] = { type: leafType };
  return document(schemas, ["D0"]);
}

describe("what an upload may cost", () => {
  it("refuses a 5,000-link $ref chain with a 422 naming the chain limit, and stores nothing", async () => {
    const response = await callJson(developer, "POST", "/projects/chain/contracts", chain(5000));
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe("invalid_document");
    expect(response.body.error.message).toContain(
      `goes through more than ${MAX_REF_CHAIN_LINKS} references to references before it reaches a value (at most ${MAX_REF_CHAIN_LINKS} are allowed)`,
    );
    expect((await callJson(developer, "GET", "/projects/chain")).status).toBe(404);
    expect((await callJson(developer, "POST", "/projects/chain/contracts", chain(MAX_REF_CHAIN_LINKS))).status).toBe(
      201,
    );
  });

  it(`refuses a fan-out of more than ${MAX_DOCUMENT_REFERENCES} $refs with a 422 naming the limit`, async () => {
    const response = await callJson(developer, "POST", "/projects/fan-out/contracts", fanOut(520));
    expect(response.status).toBe(422);
    expect(response.body.error.message).toContain(`the document has more than ${MAX_DOCUMENT_REFERENCES} $refs`);
    expect(response.body.error.details.problems).toHaveLength(1);
  });

  it("accepts a wide fan-out under the limit and finds the one changed target in every operation", async () => {
    expect((await callJson(developer, "POST", "/projects/fan-out/contracts", fanOut(400))).status).toBe(201);
    const snapshot = await callJson(
      developer,
      "POST",
      "/projects/fan-out/snapshots?commit=f00d",
      fanOut(400, "integer"),
    );
    expect(snapshot.status).toBe(201);
    expect(snapshot.body.verdict.approved).toBe(false);
    const types = snapshot.body.verdict.violations.filter(
      (violation: { rule: string }) => violation.rule === "response-type",
    );
    expect(types).toHaveLength(20);
    expect(types[0].location).toMatch(
      /#\/responses\/200\/content\/application~1json\/schema\/properties\/p199\/properties\/value$/,
    );
  });

  it("checks a 40-level diamond snapshot with a bounded verdict that still rejects it", async () => {
    expect((await callJson(developer, "POST", "/projects/diamond/contracts", diamond(40, "string"))).status).toBe(201);
    const snapshot = await callJson(
      developer,
      "POST",
      "/projects/diamond/snapshots?commit=d1a",
      diamond(40, "integer"),
    );
    expect(snapshot.status).toBe(201);
    expect(snapshot.body.verdict.approved).toBe(false);
    const types = snapshot.body.verdict.violations.filter(
      (violation: { rule: string }) => violation.rule === "response-type",
    );
    expect(types).toHaveLength(MAX_CHANGES_PER_SCHEMA);
    expect(types[0].location).toMatch(/schema(\/properties\/(left|right)){40}$/);
  });

  it("lists a bounded number of violations per rule when one shared schema changes under 2,000 operations, and counts them all", async () => {
    expect((await callJson(developer, "POST", "/projects/shared/contracts", shared(2000, "string"))).status).toBe(201);
    const snapshot = await callJson(
      developer,
      "POST",
      "/projects/shared/snapshots?commit=5aa",
      shared(2000, "integer"),
    );
    expect(snapshot.status).toBe(201);
    const verdict = snapshot.body.verdict;
    expect(verdict.approved).toBe(false);
    // The constitution adds one warning per operation (no security declared): counted and listed the same way.
    expect(verdict.summary).toContainEqual({ rule: "response-type", severity: "error", count: 200_000 });
    const total = verdict.summary.reduce((sum: number, entry: { count: number }) => sum + entry.count, 0);
    expect(verdict.totalViolations).toBe(total);
    expect(verdict.violations.filter((violation: { rule: string }) => violation.rule === "response-type")).toHaveLength(
      MAX_LISTED_PER_RULE,
    );
    expect(verdict.violations.length).toBeLessThanOrEqual(MAX_LISTED_PER_RULE * verdict.summary.length);
    expect(snapshot.body.snapshot).toMatchObject({ approved: false, totalViolations: total });
    expect(snapshot.body.markdown).toContain(`${total} violations: 200000 errors, 2000 warnings, 0 info.`);
    expect(snapshot.body.markdown).toMatch(
      /The first 200 violations are listed here; \d+ more are not: \[read the full verdict\]/,
    );
  });
});
