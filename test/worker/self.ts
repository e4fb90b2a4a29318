/**
 * The Worker under test, called as `SELF.fetch(...)`: its default export's fetch with the tests' bindings and a
 * test ExecutionContext (whose waitUntil promises the pool registers and awaits, as for SELF).
 *
 * Why not `SELF` from cloudflare:test: every request through that service binding re-imports the main module through
 * Vite's module runner, and each of those costs more than the one before, for as long as the runtime lives
 * (cloudflare/workers-sdk#15446). The worker pool keeps one runtime per vitest worker (vitest.config.ts), so late in
 * the suite a request cost far more than the Worker's own work (the figures: docs/development.md).
 * The difference for a test: the request runs in the calling test's context rather than in one of its own, so an
 * I/O object the Worker wrongly kept from one request for another would not be refused here as in production;
 * request-isolation.test.ts (through the pool's binding) and the node tests (through `wrangler dev`) refuse it.
 */
import { createExecutionContext, env } from "cloudflare:test";
import worker from "../../src/index";

export const SELF = {
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    return worker.fetch(new Request(input, init), env, createExecutionContext());
  },
};
