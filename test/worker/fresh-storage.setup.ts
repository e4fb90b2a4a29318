// Runs before every test file in the pool. Files share a runtime per worker (see vitest.config.ts), so each one
// starts by deleting every Durable Object's storage, alarms included, and with it local KV (which the runtime
// keeps in Durable Objects of its own), then ending every object still running so none of them writes again:
// a file sees only what it writes, as when each file had a runtime of its own.
import { abortAllDurableObjects, reset } from "cloudflare:test";
import { beforeAll } from "vitest";

beforeAll(async () => {
  await reset();
  await abortAllDurableObjects();
});
