// The bound a directory change takes to reach an isolate that did not make it (src/directory/client.ts): an entry
// is served as it is for DIRECTORY_REFRESH_MS, then served while one refresh runs beside the requests, and never
// past DIRECTORY_CACHE_MS; the isolate that made a change drops its entry at once.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import {
  DIRECTORY_CACHE_MS,
  DIRECTORY_REFRESH_MS,
  directoryStub,
  forgetOrganization,
  resolveOrganization,
} from "../../../src/directory/client";

/** The test's env, with a count of the directory reads made through it. */
function countingEnv() {
  const reads = { count: 0 };
  const DIRECTORY = {
    idFromName: (name: string) => env.DIRECTORY.idFromName(name),
    get: (id: DurableObjectId) => {
      reads.count += 1;
      return env.DIRECTORY.get(id);
    },
  } as typeof env.DIRECTORY;
  return { env: { DIRECTORY }, reads };
}

const status = async (at: number, on: Pick<typeof env, "DIRECTORY"> = env) =>
  (await resolveOrganization(on, "acme", at))?.record.status;

describe("the directory cache", () => {
  it("serves a change made elsewhere within DIRECTORY_CACHE_MS, and one made here at once", async () => {
    const counting = countingEnv();
    const t0 = Date.now();
    forgetOrganization("acme");
    expect(await status(t0, counting.env)).toBe("active");
    expect(counting.reads.count).toBe(1);
    // Another isolate suspends acme: this one does not hear of it.
    expect((await directoryStub(env).setStatus("acme", "suspended", "operator")).ok).toBe(true);
    expect(await status(t0 + DIRECTORY_REFRESH_MS - 1, counting.env)).toBe("active");
    expect(counting.reads.count).toBe(1);
    // Past DIRECTORY_REFRESH_MS the entry is still served, and concurrent requests start one refresh between them.
    const stale = await Promise.all(Array.from({ length: 10 }, () => status(t0 + DIRECTORY_REFRESH_MS, counting.env)));
    expect(stale).toEqual(Array(10).fill("active"));
    expect(counting.reads.count).toBe(2);
    // The refresh lands for the requests after it.
    await vi.waitFor(async () => expect(await status(t0 + DIRECTORY_REFRESH_MS + 1, counting.env)).toBe("suspended"));
    expect(counting.reads.count).toBe(2);
    // No entry older than DIRECTORY_CACHE_MS is served: that request waits for a fresh read.
    expect((await directoryStub(env).setStatus("acme", "active", "operator")).ok).toBe(true);
    expect(await status(t0 + DIRECTORY_REFRESH_MS + DIRECTORY_CACHE_MS, counting.env)).toBe("active");
    expect(counting.reads.count).toBe(3);
    // A change through this isolate's services drops its entry: the next read sees it.
    expect((await directoryStub(env).setStatus("acme", "suspended", "operator")).ok).toBe(true);
    forgetOrganization("acme");
    expect(await status(t0 + DIRECTORY_REFRESH_MS + DIRECTORY_CACHE_MS + 1)).toBe("suspended");
    expect((await directoryStub(env).setStatus("acme", "active", "operator")).ok).toBe(true);
    forgetOrganization("acme");
    expect([DIRECTORY_REFRESH_MS, DIRECTORY_CACHE_MS]).toEqual([1_000, 2_000]);
  });
});
