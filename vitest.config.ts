// In-runtime tests: every file under test/worker runs inside workerd (the vitest pool for Workers) with real
// local KV and SQLite-backed Durable Objects, against the Worker as wrangler.toml configures it.
import { availableParallelism } from "node:os";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { cimdDocuments } from "./test/fixtures/cimd-documents";
import { isVitestTeardownRace } from "./test/helpers/vitest-teardown-race";

/**
 * Outbound fetches of the Worker under test: Client ID Metadata Documents of the test clients are answered
 * here (they live at https URLs on domains nobody owns); everything else goes to the real network, so tests
 * can reach HTTP servers they start on loopback.
 */
async function outbound(request: Request): Promise<Response> {
  const document = cimdDocuments[request.url];
  if (document) {
    return new Response(JSON.stringify(document), {
      headers: { "Content-Type": "application/json", "Cache-Control": "max-age=60" },
    });
  }
  return fetch(request);
}

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        // The session outbox drains 1 s after a call rather than the deployed 5 s: tests read records soon after.
        // ARBITER_OPERATOR_KEY: the operator API (/operator/v1) is on in tests, as `npm start` turns it on.
        bindings: {
          ARBITER_DEV_SIGN_IN: "true",
          PUBLIC_URL: "http://localhost:8787",
          AUDIT_DRAIN_DELAY_SECONDS: "1",
          ARBITER_OPERATOR_KEY: "test-operator-key-not-a-secret-0123456789",
        },
        outboundService: outbound,
      },
    }),
  ],
  test: {
    name: "worker",
    // A known race of vitest's own teardown, and nothing else, is not a failure (test/helpers/vitest-teardown-race.ts).
    onUnhandledError: (error) => !isVitestTeardownRace(error),
    include: ["test/worker/**/*.test.ts"],
    // Starting a runtime (a workerd process) and importing the modules is most of a file's time: one per file made
    // the suite about 350 s on 2 cores, one per worker about 100 s. Files stay apart by their storage, which the
    // setup file empties before each one; what they share is the isolate's module state (per-isolate caches,
    // batches), which the Worker keeps across requests in production too.
    isolate: false,
    setupFiles: ["test/worker/fresh-storage.setup.ts", "test/helpers/byte-equality.setup.ts"],
    testTimeout: 30_000,
    // One file more than there are cores: a file often waits (an alarm, an outbox's drain, a session's end) with its
    // runtime idle, and one file per core left the cores idle for about a quarter of the run (docs/development.md).
    maxWorkers: availableParallelism() + 1,
  },
});
