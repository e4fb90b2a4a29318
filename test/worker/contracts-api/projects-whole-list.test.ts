/**
 * The whole project list (GET /api/v1/projects without limit, the console's projects page) comes from the
 * organization's store, which every upload of the organization also calls: it is read READ_PER_CALL at a time
 * (src/lib/page.ts), so no single store call answers all of a long list. Answers are unchanged. The probable-typo
 * check of an upload that would create a project reads only the names a keystroke could reach.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { listProjects, refuseProbableTypo } from "../../../src/contracts/services/projects";
import type { ContractStoreStub } from "../../../src/contracts/store/client";
import type { Failure } from "../../../src/core/failure";
import type { Env } from "../../../src/env";
import { READ_PER_CALL } from "../../../src/lib/page";
import { callJson, restToken } from "./api-helpers";
import { ordersContract, text } from "./fixtures";
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

describe("the probable-typo check of an upload that would create a project", () => {
  it("reads only the names one keystroke could reach, from both kinds of project, and still finds the closest", async () => {
    const ana = await restToken("ana", "contracts.write contracts.read");
    for (const name of ["shop", "catalog"])
      expect(
        (await callJson(ana, "POST", `/projects/${name}/contracts?create=true`, text(ordersContract()))).status,
      ).toBe(201);
    // Projects from before the split, as rows of acme's own store: many names no keystroke reaches, and "shoe".
    await runInDurableObject(env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName("acme")), (_instance, state) => {
      const at = new Date().toISOString();
      for (const name of ["shoe", ...Array.from({ length: 300 }, (_, i) => `far-${String(i).padStart(4, "0")}`)])
        state.storage.sql.exec(
          "INSERT INTO projects (name, created_at, created_by, active_contract_id) VALUES (?, ?, 'ana', NULL)",
          name,
          at,
        );
    });
    const { namespace, calls } = recordingCalls(env.CONTRACT_STORE, "projectNamesNear");
    const caller = {
      env: { ...(env as unknown as Env), CONTRACT_STORE: namespace },
      principal: { organizationId: "acme", userId: "acme--ana" },
    };
    const store = env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName("acme")) as unknown as ContractStoreStub;
    const near = await store.projectNamesNear(null, "shpo");
    expect(near).toEqual(["shoe", "shop"]);

    // Each kind of keystroke, at either end and inside, is still found, naming the project.
    for (const [typo, meant] of [
      ["shpo", "shop"],
      ["xhop", "shop"],
      ["hop", "shop"],
      ["shopx", "shop"],
      ["catalgo", "catalog"],
      ["atalog", "catalog"],
    ] as const) {
      const refused = await refuseProbableTypo(caller, typo).then(
        () => null,
        (failure: Failure) => failure,
      );
      expect(refused?.message, typo).toContain(`did you mean "${meant}"?`);
    }
    // One store call each, answering names only.
    expect(calls.length).toBe(6);
    // A name no keystroke reaches creates its project as before.
    await expect(refuseProbableTypo(caller, "inventory")).resolves.toBeUndefined();
  });
});
