// Node-side tests: end-to-end over `wrangler dev` with real MCP clients, the browser (headless Chromium),
// the OpenID Connect provider on loopback, and checks over the repository itself.
import { defineConfig } from "vitest/config";

/**
 * Files that share one `wrangler dev` (test/helpers/shared-wrangler-dev.ts says which files may): started once
 * by the project's globalSetup instead of once per file. Every other file starts its own server (other vars,
 * an upstream, its own port or logs, or assertions that need a server nobody else has used).
 */
const SHARED_WRANGLER_DEV = [
  "test/node/conformance.test.ts",
  "test/node/cli-login.test.ts",
  "test/node/browser-consent.test.ts",
  "test/node/cli-exchanges.test.ts",
  "test/node/cli-breaks.test.ts",
  "test/node/verdict-app.test.ts",
  "test/node/cli-projects-scopes.test.ts",
  "test/node/cli-org.test.ts",
  "test/node/examples-quickstart.test.ts",
  "test/node/spec-loop-e2e.test.ts",
  "test/node/e2e-mcp-clients.test.ts",
  "test/node/real-clients.test.ts",
  "test/node/inspector-step-up.test.ts",
  "test/node/github-action.test.ts",
];

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
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two files at a time, across both projects. The files spend much of their time waiting (a wrangler dev
    // starting, a browser, an upstream's timeout): one at a time kept 2 cores about 45% busy and took about 225 s,
    // two at a time about 70% busy and 132-141 s. Every file already starts its own server on a free port or
    // holds on the shared one whoever else uses it (test/helpers/shared-wrangler-dev.ts).
    maxWorkers: 2,
    // Files that run in the same process share the modules they import (the SDKs, playwright, ajv, the engine),
    // instead of importing them again for every file. No file stubs a global without restoring it or changes
    // process.env; what they share is module state, as the files of the worker suite do (vitest.config.ts).
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: "node-shared",
          include: SHARED_WRANGLER_DEV,
          globalSetup: ["test/helpers/prebuilt-worker.setup.ts", "test/helpers/shared-wrangler-dev.setup.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "node",
          include: ["test/node/**/*.test.ts"],
          exclude: SHARED_WRANGLER_DEV,
          globalSetup: ["test/helpers/prebuilt-worker.setup.ts"],
        },
      },
    ],
  },
});
