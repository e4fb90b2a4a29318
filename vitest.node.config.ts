// Node-side tests: end-to-end over `wrangler dev` with real MCP clients, the browser (headless Chromium),
// the OpenID Connect provider on loopback, and checks over the repository itself.
import { defineConfig } from "vitest/config";

export default defineConfig({
  // Policy .graphql files are text modules in the Worker bundle (wrangler.toml rules); the same here.
  plugins: [
    {
      name: "graphql-as-text",
      enforce: "pre",
      transform(code, id) {
        if (id.endsWith(".graphql")) return { code: `export default ${JSON.stringify(code)};`, map: null };
        return undefined;
      },
    },
  ],
  test: {
    include: ["test/node/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
