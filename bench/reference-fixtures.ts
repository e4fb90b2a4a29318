/**
 * Documents whose references made naive resolution explode (issue 9, item 13), for the benchmark rows beside
 * JSON.parse of the same text: a 5,000-link chain of pure `$ref`s (quadratic to resolve before; refused now, at
 * the chain limit), a wide fan-out (400 schemas each referring to the same 200), and a 40-level "diamond" (two
 * properties referring to the same next schema: 2^40 paths to a difference at the bottom).
 */
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
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "References", version: "1" },
    paths,
    components: { schemas },
  });
}

export function chainText(links: number): string {
  const schemas: Record<string, unknown> = {};
  for (let index = 0; index < links; index++) schemas[`S${index}`] = ref(`S${index + 1}`);
  schemas[`S${links}`] = { type: "string" };
  return document(schemas, ["S0"]);
}

export function fanOutText(width: number, targets: number): string {
  const schemas: Record<string, unknown> = {};
  for (let target = 0; target < targets; target++)
    schemas[`T${target}`] = { type: "object", properties: { value: { type: "string" } } };
  for (let index = 0; index < width; index++) {
    const properties: Record<string, unknown> = {};
    for (let target = 0; target < targets; target++) properties[`p${target}`] = ref(`T${target}`);
    schemas[`S${index}`] = { type: "object", properties };
  }
  return document(
    schemas,
    Array.from({ length: 20 }, (_, index) => `S${index}`),
  );
}

export function diamondText(levels: number, leafType: string): string {
  const schemas: Record<string, unknown> = {};
  for (let index = 0; index < levels; index++)
    schemas[`D${index}`] = { type: "object", properties: { left: ref(`D${index + 1}`), right: ref(`D${index + 1}`) } };
  schemas[`D${levels}`] = { type: leafType };
  return document(schemas, ["D0"]);
}
