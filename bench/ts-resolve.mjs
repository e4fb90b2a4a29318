// Lets Node 22 run the engine's TypeScript sources directly (with --experimental-transform-types): the sources
// use extensionless relative imports (files and folders with an index.ts) as the Worker bundler does, import JSON policy files without attributes,
// and import .graphql policy files as text (wrangler.toml's Text rule does the same in the Worker bundle).
import { registerHooks } from "node:module";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (
      (specifier.startsWith(".") || specifier.startsWith("/")) &&
      !/\.[cm]?[jt]s$|\.json$|\.graphql$/.test(specifier)
    ) {
      // As the Worker bundler does: the file with .ts, else the folder's index.ts (src/engine is imported as a folder).
      for (const candidate of [`${specifier}.ts`, `${specifier}/index.ts`]) {
        try {
          return nextResolve(candidate, context);
        } catch {
          // not this one: the next candidate, then default resolution below
        }
      }
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (url.endsWith(".json"))
      return nextLoad(url, { ...context, importAttributes: { ...context.importAttributes, type: "json" } });
    if (url.endsWith(".graphql")) {
      return {
        format: "module",
        shortCircuit: true,
        source: `export default ${JSON.stringify(readFileSync(fileURLToPath(url), "utf8"))};`,
      };
    }
    return nextLoad(url, context);
  },
});
