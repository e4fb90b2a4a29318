// Bundled in place of `zod/v3` and `zod-to-json-schema` (wrangler.toml [alias]). Their only importer in the Worker is
// the MCP SDK 1.x's compatibility layer (sdk/dist/esm/server/zod-compat.js, zod-json-schema-compat.js), which takes
// them only for schemas written with zod 3: every schema here is zod 4 (`zod` 4.x, and the SDKs' own), so the
// ~160 KiB they added to the bundle never ran. Should a zod 3 schema ever reach the SDK, it fails with this message.
const REFUSED =
  "zod 3 is not bundled in this Worker (wrangler.toml [alias], src/lib/zod-v3-refusal.ts): write schemas with zod 4.";

/** zod/v3's `object`, which the SDK calls only for a shape of zod 3 schemas. */
export function object(): never {
  throw new Error(REFUSED);
}

/** zod-to-json-schema's converter, which the SDK calls only for a zod 3 schema. */
export function zodToJsonSchema(): never {
  throw new Error(REFUSED);
}
