// Runs before every test file in the pool. Files share a runtime per worker (see vitest.config.ts), so each one
// starts by deleting every Durable Object's storage, alarms included, and with it local KV (which the runtime
// keeps in Durable Objects of its own), then ending every object still running so none of them writes again:
// a file sees only what it writes, as when each file had a runtime of its own.
//
// reset() empties the objects that are running; on a loaded machine an object evicted as idle before it can keep
// its storage, and a request of the previous file still in flight can write after it. Local KV is checked (which
// wakes its objects) and the reset made again while a key is left: at most three times.
//
// The isolate's module state is shared by the files too (vitest.config.ts, `isolate: false`): the directory's cache of
// organization records is dropped with the storage it caches, so a file never reads another file's settings.
import { abortAllDurableObjects, env, reset } from "cloudflare:test";
import { beforeAll } from "vitest";
import { forgetEveryOrganization } from "../../src/directory/client";

const kvLeft = async () =>
  (await env.OAUTH_KV.list({ limit: 1 })).keys.length + (await env.RATE_LIMIT_KV.list({ limit: 1 })).keys.length;

beforeAll(async () => {
  for (let attempt = 1; attempt <= 3; attempt++) {
    await reset();
    await abortAllDurableObjects();
    forgetEveryOrganization();
    if ((await kvLeft()) === 0) return;
  }
});
