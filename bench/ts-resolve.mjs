// Lets Node 22 run the engine's TypeScript sources directly (with --experimental-transform-types): the sources
// use extensionless relative imports as the Worker bundler does, import JSON policy files without attributes,
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
      try {
        return nextResolve(`${specifier}.ts`, context);
      } catch {
        // not a TypeScript file: default resolution below
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
