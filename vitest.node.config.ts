// Node-side tests: end-to-end over `wrangler dev` with real MCP clients, the browser (headless Chromium),
// the OpenID Connect provider on loopback, and checks over the repository itself.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/node/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
