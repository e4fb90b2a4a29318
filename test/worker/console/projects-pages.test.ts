// The console's Projects page reads each shown project's own store, so it shows PROJECTS_PER_PAGE projects at a
// time, by name, with links to the next and first ones: a page costs the same whatever the number of projects.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PROJECTS_PER_PAGE } from "../../../src/web/console/projects.page";
import { callJson } from "../contracts-api/api-helpers";
import { ordersContract, text } from "../contracts-api/fixtures";
import { restPrincipal } from "../harness";
import { signedIn } from "./console-helpers";

describe("the Projects page", () => {
  it(`shows ${PROJECTS_PER_PAGE} projects per page, by name, and links to the next ones`, async () => {
    const names = Array.from({ length: PROJECTS_PER_PAGE + 1 }, (_, i) => `paged-${String(i).padStart(3, "0")}`);
    // Projects as a store from before the split holds them (no contract yet): cheaper than an upload each.
    await runInDurableObject(env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName("acme")), async (_o, state) => {
      for (const name of names)
        state.storage.sql.exec(
          "INSERT INTO projects (name, created_at, created_by) VALUES (?, ?, 'ana')",
          name,
          new Date().toISOString(),
        );
    });
    // And two in stores of their own, listed from the organization's directory of projects.
    const token = restPrincipal("ana", "contracts.write contracts.read");
    for (const name of ["zz-own-a", "zz-own-b"])
      expect(
        (await callJson(token, "POST", `/projects/${name}/contracts?create=true`, text(ordersContract()))).status,
      ).toBe(201);
    const ana = await signedIn("ana");
    // The names in the projects table (the storage section below it lists every project's bytes).
    const shown = (page: string) => {
      const table = page.split('id="storage"')[0]!;
      return [...names, "zz-own-a", "zz-own-b"].filter((name) => table.includes(`>${name}<`));
    };

    const first = (await ana.get("/admin/projects")).text;
    expect(shown(first)).toEqual(names.slice(0, PROJECTS_PER_PAGE));
    const next = /href="(\/admin\/projects\?after=[^"]+)"/.exec(first)?.[1];
    expect(next).toBe(`/admin/projects?after=${names[PROJECTS_PER_PAGE - 1]}`);

    const second = await ana.get(next!);
    expect(second.status).toBe(200);
    expect(shown(second.text)).toEqual([names[PROJECTS_PER_PAGE], "zz-own-a", "zz-own-b"]);
    expect(second.text).toContain('href="/admin/projects">First projects');
    expect(second.text).not.toContain("Next projects");
    // A name no project could have is the first page.
    expect(shown((await ana.get("/admin/projects?after=%3Cscript%3E")).text)).toEqual(
      names.slice(0, PROJECTS_PER_PAGE),
    );
  });
});
