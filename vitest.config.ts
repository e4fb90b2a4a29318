// In-runtime tests: every file under test/worker runs inside workerd (the vitest pool for Workers) with real
// local KV and SQLite-backed Durable Objects, against the Worker as wrangler.toml configures it.
import { availableParallelism } from "node:os";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { configDefaults, defineConfig } from "vitest/config";
import { cimdDocuments } from "./test/fixtures/cimd-documents";

/**
 * Outbound fetches of the Worker under test: Client ID Metadata Documents of the test clients are answered
 * here (they live at https URLs on domains nobody owns); everything else goes to the real network, so tests
 * can reach HTTP servers they start on loopback.
 */
async function outbound(request: Request): Promise<Response> {
  const document = cimdDocuments[request.url];
  if (document) {
    return new Response(JSON.stringify(document), { headers: { "Content-Type": "application/json", "Cache-Control": "max-age=60" } });
  }
  return fetch(request);
}

/**
 * Files that test pure code (the contract engine and its rules, policy loading, small libraries): they touch no
 * storage and no binding, so they share one runtime per worker instead of starting one each. Starting a runtime
 * and importing the modules is most of a file's time: these 56 files took about 100 s of the suite that way, and
 * take a few seconds together. Everything else keeps a runtime (and storage) of its own per file.
 */
const SHARED_RUNTIME = [
  "test/worker/engine/**/*.test.ts",
  "test/worker/policy.test.ts",
  "test/worker/lib.test.ts",
  "test/worker/lib/**/*.test.ts",
  "test/worker/log.test.ts",
  "test/worker/audit-stored-record.test.ts",
  "test/worker/mcp-json-schema.test.ts",
  "test/worker/graphql/catalog.test.ts",
];

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        // The session outbox drains 1 s after a call rather than the deployed 5 s: tests read records soon after.
        bindings: { ARBITER_DEV_SIGN_IN: "true", PUBLIC_URL: "http://localhost:8787", AUDIT_DRAIN_DELAY_SECONDS: "1" },
        outboundService: outbound,
      },
    }),
  ],
  test: {
    projects: [
      { extends: true, test: { name: "worker", include: ["test/worker/**/*.test.ts"], exclude: [...configDefaults.exclude, ...SHARED_RUNTIME] } },
      { extends: true, test: { name: "worker-pure", include: SHARED_RUNTIME, isolate: false } },
    ],
    testTimeout: 30_000,
    // Each file gets its own runtime (its own storage); most of a file's time is starting it and importing the
    // modules, which keeps neither the Node side nor workerd busy. vitest's default (cores - 1) runs one file at a
    // time on 2 cores; two at a time measured about 1.4x faster there. More cores keep the default.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
