/**
 * The whole project list (GET /api/v1/projects without limit, the console's projects page) comes from the
 * organization's store, which every upload of the organization also calls: it is read READ_PER_CALL at a time
 * (src/lib/page.ts), so no single store call answers all of a long list. Answers are unchanged.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { listProjects } from "../../../src/contracts/services/projects";
import type { Env } from "../../../src/env";
import { READ_PER_CALL } from "../../../src/lib/page";
import { callJson, restToken } from "./api-helpers";
import { recordingCalls } from "../recorded-calls";

/** The Worker's env with the organization stores' listProjects calls recorded, and the limit each asked for. */
function recordingListLimits(): { env: Env; limits: () => unknown[] } {
  const { namespace, calls } = recordingCalls(env.CONTRACT_STORE, "listProjects");
  return {
    env: { ...(env as unknown as Env), CONTRACT_STORE: namespace },
    limits: () => calls.map((args) => args[1]),
  };
}

describe("the whole project list", () => {
  it("reads every project a bounded page per store call, and answers them all as before", async () => {
    const seeded = READ_PER_CALL + 25;
    // Projects as rows of globex's organization store (its projects from before the split).
    await runInDurableObject(env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName("globex")), (_instance, state) => {
      const at = new Date().toISOString();
      for (let i = 0; i < seeded; i++)
        state.storage.sql.exec(
          "INSERT INTO projects (name, created_at, created_by, active_contract_id) VALUES (?, ?, 'gus', NULL)",
          `whole-${String(i).padStart(5, "0")}`,
          at,
        );
    });
    const { env: recordingEnv, limits } = recordingListLimits();
    const caller = { env: recordingEnv, principal: { organizationId: "globex", userId: "globex--gus" } };
    const projects = await listProjects(caller);
    expect(projects.filter((project) => project.name.startsWith("whole-"))).toHaveLength(seeded);
    expect(new Set(projects.map((project) => project.name)).size).toBe(projects.length);
    expect(limits().length).toBeGreaterThanOrEqual(2);
    expect(limits().every((limit) => typeof limit === "number" && limit <= READ_PER_CALL)).toBe(true);

    // A limit is still one call of that many.
    const before = limits().length;
    expect(await listProjects(caller, { limit: 5, after: "whole-00010" })).toHaveLength(5);
    expect(limits().slice(before)).toEqual([5]);

    // Over REST, unchanged: without limit every project; with limit a page and where the next starts.
    const gus = await restToken("gus", "contracts.read");
    const all = await callJson(gus, "GET", "/projects");
    expect(all.body.projects).toHaveLength(projects.length);
    expect(all.body.nextAfter).toBeNull();
    const page = await callJson(gus, "GET", "/projects?limit=3&after=whole-00100");
    expect(page.body.projects.map((project: { name: string }) => project.name)).toEqual([
      "whole-00101",
      "whole-00102",
      "whole-00103",
    ]);
    expect(page.body.nextAfter).toBe("whole-00103");
  });
});
