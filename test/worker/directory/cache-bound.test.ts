// The bound a directory change takes to reach an isolate that did not make it (src/directory/client.ts; the isolate
// reads the organization's view, src/directory/view.ts, which the directory tells of each change): an entry
// is served as it is for DIRECTORY_REFRESH_MS, then served while one refresh runs beside the requests, and never
// past DIRECTORY_CACHE_MS; the isolate that made a change drops its entry at once.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import {
  DIRECTORY_CACHE_MS,
  DIRECTORY_REFRESH_MS,
  directoryStub,
  cachedOrganizationCount,
  forgetEveryOrganization,
  forgetOrganization,
  MAX_CACHED_ORGANIZATIONS,
  organizationChanged,
  organizationView,
  resolveOrganization,
} from "../../../src/directory/client";

/** The test's env, with a count of the reads of the organization's view (view.ts) made through it. */
function countingEnv() {
  const reads = { count: 0 };
  const DIRECTORY_VIEW = {
    idFromName: (name: string) => env.DIRECTORY_VIEW.idFromName(name),
    get: (id: DurableObjectId) => {
      reads.count += 1;
      return env.DIRECTORY_VIEW.get(id);
    },
  } as typeof env.DIRECTORY_VIEW;
  return { env: { DIRECTORY_VIEW }, reads };
}

const status = async (at: number, on: Pick<typeof env, "DIRECTORY_VIEW"> = env) =>
  (await resolveOrganization(on, "acme", at))?.record.status;

/** Another isolate's change, made in the directory: once the directory has told acme's view (view.ts). */
async function changedElsewhere(to: "active" | "suspended"): Promise<void> {
  expect((await directoryStub(env).setStatus("acme", to, "operator")).ok).toBe(true);
  await vi.waitFor(async () => expect((await organizationView(env, "acme").resolve())?.record.status).toBe(to));
}

describe("the directory cache", () => {
  it("serves a change made elsewhere within DIRECTORY_CACHE_MS, and one made here at once", async () => {
    const counting = countingEnv();
    const t0 = Date.now();
    forgetOrganization("acme");
    expect(await status(t0, counting.env)).toBe("active");
    expect(counting.reads.count).toBe(1);
    // Another isolate suspends acme: this one does not hear of it.
    await changedElsewhere("suspended");
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
    await changedElsewhere("active");
    expect(await status(t0 + DIRECTORY_REFRESH_MS + DIRECTORY_CACHE_MS, counting.env)).toBe("active");
    expect(counting.reads.count).toBe(3);
    // A change through this isolate's services drops its entry and the view's: the next read sees it.
    expect((await directoryStub(env).setStatus("acme", "suspended", "operator")).ok).toBe(true);
    await organizationChanged(env, "acme");
    expect(await status(t0 + DIRECTORY_REFRESH_MS + DIRECTORY_CACHE_MS + 1)).toBe("suspended");
    expect((await directoryStub(env).setStatus("acme", "active", "operator")).ok).toBe(true);
    await organizationChanged(env, "acme");
    expect([DIRECTORY_REFRESH_MS, DIRECTORY_CACHE_MS]).toEqual([1_000, 2_000]);
  });
});

describe("the isolate's cache of organizations", () => {
  it("holds at most MAX_CACHED_ORGANIZATIONS, dropping the one loaded longest ago", async () => {
    forgetEveryOrganization();
    // Views that answer at once (no organization), so a thousand and more organizations cost no objects.
    const DIRECTORY_VIEW = {
      idFromName: (name: string) => env.DIRECTORY_VIEW.idFromName(name),
      get: () => ({ resolve: async () => null }),
    } as unknown as typeof env.DIRECTORY_VIEW;
    const many = { DIRECTORY_VIEW };
    const now = Date.now();
    for (let n = 0; n < MAX_CACHED_ORGANIZATIONS + 50; n++) await resolveOrganization(many, `org-${n}`, now);
    expect(cachedOrganizationCount()).toBe(MAX_CACHED_ORGANIZATIONS);
    // org-0 to org-49 went; a newcomer pushes out org-50, the one loaded longest ago, and org-51 stays.
    await resolveOrganization(many, "newcomer", now);
    expect(cachedOrganizationCount()).toBe(MAX_CACHED_ORGANIZATIONS);
    const counting = { count: 0 };
    const countingMany = {
      DIRECTORY_VIEW: {
        idFromName: (name: string) => env.DIRECTORY_VIEW.idFromName(name),
        get: () => {
          counting.count += 1;
          return { resolve: async () => null };
        },
      } as unknown as typeof env.DIRECTORY_VIEW,
    };
    await resolveOrganization(countingMany, "org-51", now);
    expect(counting.count).toBe(0);
    await resolveOrganization(countingMany, "org-50", now);
    expect(counting.count).toBe(1);
    forgetEveryOrganization();
  });
});
