// In-runtime tests: every file under test/worker runs inside workerd (the vitest pool for Workers) with real
// local KV and SQLite-backed Durable Objects, against the Worker as wrangler.toml configures it.
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: { ARBITER_DEV_SIGN_IN: "true", PUBLIC_URL: "http://localhost:8787" },
      },
    }),
  ],
  test: {
    include: ["test/worker/**/*.test.ts"],
    testTimeout: 30_000,
  },
});
