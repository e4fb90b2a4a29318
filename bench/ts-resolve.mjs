// Lets Node 22 run the engine's TypeScript sources directly (with --experimental-transform-types): the sources
// use extensionless relative imports as the Worker bundler does, and import JSON policy files without attributes.
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    if ((specifier.startsWith(".") || specifier.startsWith("/")) && !/\.[cm]?[jt]s$|\.json$/.test(specifier)) {
      try {
        return nextResolve(`${specifier}.ts`, context);
      } catch {
        // not a TypeScript file: default resolution below
      }
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (url.endsWith(".json")) return nextLoad(url, { ...context, importAttributes: { ...context.importAttributes, type: "json" } });
    return nextLoad(url, context);
  },
});
