// The bound a directory change takes to reach an isolate that did not make it (src/directory/client.ts): a cached
// entry is used for less than DIRECTORY_CACHE_MS, then read again; the isolate that made a change drops it at once.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  DIRECTORY_CACHE_MS,
  directoryStub,
  forgetOrganization,
  resolveOrganization,
} from "../../../src/directory/client";

describe("the directory cache", () => {
  it("serves a change made elsewhere within DIRECTORY_CACHE_MS, and one made here at once", async () => {
    const t0 = Date.now();
    forgetOrganization("acme");
    expect((await resolveOrganization(env, "acme", t0))?.record.status).toBe("active");
    // Another isolate suspends acme: this one does not hear of it.
    expect((await directoryStub(env).setStatus("acme", "suspended", "operator")).ok).toBe(true);
    expect((await resolveOrganization(env, "acme", t0 + DIRECTORY_CACHE_MS - 1))?.record.status).toBe("active");
    expect((await resolveOrganization(env, "acme", t0 + DIRECTORY_CACHE_MS))?.record.status).toBe("suspended");
    // A change through this isolate's services drops its entry: the next read sees it.
    expect((await directoryStub(env).setStatus("acme", "active", "operator")).ok).toBe(true);
    forgetOrganization("acme");
    expect((await resolveOrganization(env, "acme", t0 + DIRECTORY_CACHE_MS + 1))?.record.status).toBe("active");
    expect(DIRECTORY_CACHE_MS).toBe(2_000);
  });
});
