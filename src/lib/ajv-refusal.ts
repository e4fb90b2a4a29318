// Bundled in place of the `ajv` and `ajv-formats` packages (wrangler.toml [alias]). Their only importer in the Worker
// is the MCP SDK 1.x's default JSON Schema validator (sdk/dist/esm/validation/ajv-provider.js), which its server builds
// only when it is given no validator of its own; src/mcp/session/server.ts gives it @cfworker/json-schema's. Workers forbid
// the code generation ajv compiles schemas with, so the 300 KiB it added to the bundle could never have validated
// anything here. Should anything ever construct it, it fails with this message instead.
export default function ajvRefused(): never {
  throw new Error(
    "ajv is not bundled in this Worker (wrangler.toml [alias], src/lib/ajv-refusal.ts): give the MCP SDK a jsonSchemaValidator, as src/mcp/session/server.ts does.",
  );
}
