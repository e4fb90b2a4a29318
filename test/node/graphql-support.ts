/**
 * Node-side support for the order-data tests: reads a policies/ folder from disk into the same
 * path -> parsed JSON / .graphql text map the Worker bundles (src/policy/files.ts).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

export function readPolicyFolder(root: string): Record<string, unknown> {
  const files: Record<string, unknown> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const key = relative(root, path).split(sep).join("/");
        const text = readFileSync(path, "utf8");
        if (name.endsWith(".json")) files[key] = JSON.parse(text);
        else if (name.endsWith(".graphql")) files[key] = text;
      }
    }
  };
  walk(root);
  return files;
}
