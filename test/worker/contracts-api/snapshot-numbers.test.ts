// Snapshot ids count in the store that holds the project: its own store for every project created since the split
// (docs/storage.md "One store per project"), so another project's uploads do not advance them. Each snapshot also
// carries its number in its project, and answers name both ("snapshot 1 of beta (id 1, ...)").
import { beforeAll, describe, expect, it } from "vitest";
import { call, callJson } from "./api-helpers";
import { restPrincipal, type Caller } from "../harness";
import { conformingSnapshot, ordersContract, text } from "./fixtures";

let token: Caller;

beforeAll(async () => {
  token = restPrincipal("dev", "contracts.read contracts.write snapshots.write");
});

describe("snapshot numbers per project", () => {
  it("numbers each project's snapshots from 1, with ids that another project's uploads do not advance", async () => {
    for (const project of ["alpha", "beta"])
      expect((await callJson(token, "POST", `/projects/${project}/contracts`, text(ordersContract()))).status).toBe(
        201,
      );
    const a1 = await callJson(token, "POST", "/projects/alpha/snapshots?commit=aaaa0001", text(conformingSnapshot()));
    const b1 = await callJson(token, "POST", "/projects/beta/snapshots?commit=bbbb0001", text(conformingSnapshot()));
    const a2 = await callJson(token, "POST", "/projects/alpha/snapshots?commit=aaaa0002", text(conformingSnapshot()));
    const b2 = await callJson(token, "POST", "/projects/beta/snapshots?commit=bbbb0002", text(conformingSnapshot()));
    expect([a1.body.snapshot.number, b1.body.snapshot.number, b2.body.snapshot.number]).toEqual([1, 1, 2]);
    // Each project's store counts its own: alpha's second upload came between beta's first and second.
    expect(a2.body.snapshot.id).toBe(a1.body.snapshot.id + 1);
    expect(b2.body.snapshot.id).toBe(b1.body.snapshot.id + 1);

    const listed = await callJson(token, "GET", "/projects/beta/snapshots");
    expect(listed.body.snapshots.map((s: { number: number; commit: string }) => [s.number, s.commit])).toEqual([
      [2, "bbbb0002"],
      [1, "bbbb0001"],
    ]);
    const one = await callJson(token, "GET", `/projects/beta/snapshots/${b1.body.snapshot.id}`);
    expect(one.body.snapshot).toMatchObject({ id: b1.body.snapshot.id, number: 1 });

    const markdown = await (
      await call(token, "GET", `/projects/beta/snapshots/${b1.body.snapshot.id}?format=markdown`)
    ).text();
    expect(markdown).toContain(`snapshot 1 of beta (id ${b1.body.snapshot.id}, commit bbbb0001)`);
    const verdict = await (
      await call(token, "GET", `/projects/beta/verdicts/${b2.body.snapshot.verdictId}?format=markdown`)
    ).text();
    expect(verdict).toContain(`snapshot 2 of beta (id ${b2.body.snapshot.id}, commit bbbb0002)`);
  });

  it("keeps each snapshot's number across pages, with another project's snapshots in between", async () => {
    for (const project of ["gamma", "delta"])
      expect((await callJson(token, "POST", `/projects/${project}/contracts`, text(ordersContract()))).status).toBe(
        201,
      );
    for (let index = 1; index <= 5; index++) {
      await callJson(token, "POST", `/projects/gamma/snapshots?commit=gggg000${index}`, text(conformingSnapshot()));
      await callJson(token, "POST", `/projects/delta/snapshots?commit=dddd000${index}`, text(conformingSnapshot()));
    }
    const seen: Array<[number, string]> = [];
    let before: number | null = null;
    for (let pageCount = 0; pageCount < 5; pageCount++) {
      const listed: { body: { snapshots: unknown[]; nextBefore: number | null } } = await callJson(
        token,
        "GET",
        `/projects/gamma/snapshots?limit=2${before === null ? "" : `&before=${before}`}`,
      );
      for (const snapshot of listed.body.snapshots as Array<{ number: number; commit: string; approved: boolean }>) {
        seen.push([snapshot.number, snapshot.commit]);
        expect(snapshot.approved).toBe(true);
      }
      before = listed.body.nextBefore;
      if (before === null) break;
    }
    expect(seen).toEqual([5, 4, 3, 2, 1].map((number) => [number, `gggg000${number}`]));
  });

  it("lists projects in name order, cut at ?limit in the store", async () => {
    for (const project of ["aaa-1", "aaa-2", "aaa-3"])
      expect(
        (await callJson(token, "POST", `/projects/${project}/contracts?create=true`, text(ordersContract()))).status,
      ).toBe(201);
    const listed = await callJson(token, "GET", "/projects?limit=2");
    expect(listed.body.projects.map((project: { name: string }) => project.name)).toEqual(["aaa-1", "aaa-2"]);
    expect(listed.body.nextAfter).toBe("aaa-2");
    const whole = await callJson(token, "GET", "/projects");
    expect(whole.body.projects.length).toBeGreaterThanOrEqual(3);
    expect(whole.body.nextAfter).toBeNull();
  });

  it("pages the projects with ?after=nextAfter until nextAfter is null, each project once", async () => {
    const all = (await callJson(token, "GET", "/projects")).body.projects.map((p: { name: string }) => p.name);
    const paged: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 20; page++) {
      const path = `/projects?limit=2${after === null ? "" : `&after=${after}`}`;
      const listed: { status: number; body: { projects: Array<{ name: string }>; nextAfter: string | null } } =
        await callJson(token, "GET", path);
      expect(listed.status).toBe(200);
      paged.push(...listed.body.projects.map((p) => p.name));
      after = listed.body.nextAfter;
      if (after === null) break;
    }
    expect(after).toBeNull();
    expect(paged).toEqual(all);
    const bad = await callJson(token, "GET", "/projects?limit=2&after=Not%20A%20Name");
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_query");
    expect(bad.body.detail).toContain("after must be a project name");
  });
});
