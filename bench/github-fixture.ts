/** Loads GitHub's REST API description and builds a mutated copy (the same kinds of change the tests use). */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

type Json = Record<string, any>;
const METHODS = ["get", "put", "post", "delete", "patch"];

export function githubText(): string {
  const require = createRequire(import.meta.url);
  return readFileSync(require.resolve("@octokit/openapi/generated/api.github.com.json"), "utf8");
}

/** Parses `text` again and applies: 3 operations removed, 1 added, 3 status codes removed, 3 property types changed. */
export function mutatedCopy(text: string): Json {
  const snapshot = JSON.parse(text) as Json;
  const paths = Object.entries(snapshot.paths as Json);
  let removed = 0;
  let statuses = 0;
  let types = 0;
  for (const [, item] of paths) {
    const methods = METHODS.filter((method) => item[method]);
    if (removed < 3 && methods.length > 1) {
      delete item[methods[0] as string];
      removed++;
      continue;
    }
    const withNotFound = methods.find((method) => item[method].responses?.["404"]);
    if (statuses < 3 && withNotFound) {
      delete item[withNotFound].responses["404"];
      statuses++;
      continue;
    }
    for (const method of methods) {
      const schema = item[method].responses?.["200"]?.content?.["application/json"]?.schema;
      if (types >= 3 || !schema?.properties) continue;
      const name = Object.keys(schema.properties).find((key) => schema.properties[key].type === "string");
      if (name) {
        schema.properties[name] = { type: "integer" };
        types++;
      }
    }
  }
  snapshot.paths["/arbiter/experiments"] = { get: { responses: { "200": { description: "ok" } } } };
  return snapshot;
}
