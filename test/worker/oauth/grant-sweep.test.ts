/**
 * Organization-wide grant revocations run as a sweep of bounded batches (src/oauth/grant-sweep.ts): a narrowed role
 * cap and a deletion reach every grant holder however many there are, each batch within its KV allowance, and a batch
 * that fails is taken up where it stopped. Grants here are made by the OAuth library itself (completeAuthorization),
 * holders by the index /authorize writes.
 */
import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { listGrantHolderPage } from "../../../src/oauth/grant-holders";
import { newSweep, SWEEP_KV_BUDGET, type SweepState, sweepBatch } from "../../../src/oauth/grant-sweep";
import { grantSweeper } from "../../../src/oauth/grant-sweeper-rpc";
import { grantUserId } from "../../../src/oauth/servers";
import { grantAs, newClient, oauth, workerEnv } from "./grants";
import { operator } from "../directory/helpers";
import { removeMember } from "../../../src/organizations/admin";

/** The most one step past the budget can add: a holder's grant list and reads, or one revocation (no tokens here). */
const OVERSHOOT = 4;

/** Notes `subject` as a grant holder of `organizationId` and grants every client its scopes, as /authorize does. */
async function seedSubject(
  organizationId: string,
  subject: string,
  grants: { clientId: string; scope: string[] }[],
): Promise<void> {
  for (const { clientId, scope } of grants) await grantAs(organizationId, subject, clientId, scope);
}

/** `count` holders of `organizationId` (subjects `<prefix>-000`...), each granting every client its scopes. */
async function seedHolders(
  organizationId: string,
  prefix: string,
  count: number,
  grants: { clientId: string; scope: string[] }[],
): Promise<string[]> {
  const subjects = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, "0")}`);
  for (const subject of subjects) await seedSubject(organizationId, subject, grants);
  return subjects;
}

/** The Worker's env with KV failing from its `after`-th operation on. */
function kvFailingAfter(after: number): Env {
  let operations = 0;
  return {
    ...workerEnv,
    OAUTH_KV: new Proxy(env.OAUTH_KV, {
      get: (target, property) => {
        const value = Reflect.get(target, property).bind(target);
        return (...args: unknown[]) =>
          ++operations > after ? Promise.reject(new Error("KV unavailable")) : value(...args);
      },
    }),
  };
}

async function grantedClients(organizationId: string, subject: string): Promise<string[]> {
  const page = await oauth().listUserGrants(grantUserId(organizationId, subject));
  return page.items.map((grant) => grant.clientId).sort();
}

/** Runs the sweeper's alarms until its sweep is finished; every batch's KV operations. */
async function sweepToTheEnd(organizationId: string): Promise<number[]> {
  const sweeper = grantSweeper(workerEnv, organizationId);
  const operations: number[] = [];
  let seen = 0;
  for (let looks = 0; looks < 60; looks++) {
    const state = (await sweeper.progress()) as SweepState;
    // A batch is counted once, whether this loop ran it or the sweeper's own alarm (100 ms) did first.
    if (state.batches > seen) {
      seen = state.batches;
      operations.push(state.lastBatch?.kvOperations ?? 0);
    }
    if (state.phase === "finished") return operations;
    expect(state.lastBatch?.error).toBeNull();
    // On a loaded machine the sweeper's own alarm may be running the next batch already: none is left to run here.
    if (!(await runDurableObjectAlarm(sweeper))) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the sweep did not finish in 60 looks");
}

describe("a narrowed role cap", () => {
  it("reaches every one of 220 holders in batches within the KV allowance; each keeps what the role grants now", async () => {
    const wide = await newClient("wide");
    const narrow = await newClient("narrow");
    const subjects = await seedHolders("acme", "capped", 220, [
      { clientId: wide, scope: ["orders.read", "orders.search"] },
      { clientId: narrow, scope: ["orders.read"] },
    ]);
    // The holders are not on acme's member list: they are held to its default role, member.
    const capped = await operator("PATCH", "/organizations/acme", {
      roleCaps: { member: ["orders.read", "contracts.read", "offline_access"] },
    });
    expect(capped.status).toBe(200);

    // The answer came after one batch: it revoked what its allowance reached, and the alarm has the rest.
    const afterAnswer = (await operator("GET", "/organizations/acme")).body.grantSweep;
    expect(afterAnswer).toMatchObject({ organizationId: "acme", phase: "revoke", batches: 1 });
    expect(afterAnswer.revoked).toBeGreaterThan(0);
    expect(afterAnswer.revoked).toBeLessThan(220);
    expect(afterAnswer.lastBatch.kvOperations).toBeLessThanOrEqual(SWEEP_KV_BUDGET + OVERSHOOT);
    expect(await grantedClients("acme", subjects.at(-1) as string)).toEqual([narrow, wide].sort());

    const batches = await sweepToTheEnd("acme");
    for (const operations of batches) expect(operations).toBeLessThanOrEqual(SWEEP_KV_BUDGET + OVERSHOOT);
    const done = (await operator("GET", "/organizations/acme")).body.grantSweep;
    expect(done).toMatchObject({ phase: "finished", revoked: 220, finishedAt: expect.any(String) });
    // More KV operations than one invocation may start (1,000): a single request could not have done this. The
    // sweep's own count, since the sweeper's alarm may run two batches between two of this test's looks.
    expect(done.kvOperations).toBeGreaterThan(1000);
    expect(done.kvOperations).toBeGreaterThanOrEqual(batches.reduce((sum, operations) => sum + operations, 0));
    expect(done.kvOperations).toBeLessThanOrEqual(done.batches * (SWEEP_KV_BUDGET + OVERSHOOT));
    for (const subject of subjects) expect(await grantedClients("acme", subject)).toEqual([narrow]);
    // The index stays: the organization goes on.
    expect((await listGrantHolderPage(workerEnv, "acme", { limit: 1000 })).holders).toHaveLength(220);
    expect((await operator("PATCH", "/organizations/acme", { roleCaps: null })).status).toBe(200);
  });
});

describe("a deletion", () => {
  it("revokes every grant of its 120 holders, then forgets them, and touches no other organization", async () => {
    const id = "sweepco";
    expect((await operator("POST", "/organizations", { id, name: "Sweep Co" })).status).toBe(201);
    expect((await operator("GET", `/organizations/${id}/export`)).status).toBe(200);
    const clientId = await newClient("deleted-org-client");
    const subjects = await seedHolders(id, "deleted", 120, [{ clientId, scope: ["orders.read"] }]);
    const [neighbour] = await seedHolders("globex", "neighbour", 1, [{ clientId, scope: ["orders.read"] }]);

    expect((await operator("DELETE", `/organizations/${id}`)).status).toBe(202);
    for (const operations of await sweepToTheEnd(id))
      expect(operations).toBeLessThanOrEqual(SWEEP_KV_BUDGET + OVERSHOOT);

    expect((await grantSweeper(workerEnv, id).progress())?.revoked).toBe(120);
    for (const subject of subjects) expect(await grantedClients(id, subject)).toEqual([]);
    // No name or subject of its members stays in KV.
    expect((await env.OAUTH_KV.list({ prefix: `arbiter:grant-holders:v1:${id}:` })).keys).toEqual([]);
    expect(await grantedClients("globex", neighbour as string)).toEqual([clientId]);
    expect((await listGrantHolderPage(workerEnv, "globex", { limit: 10 })).holders.map((h) => h.subject)).toContain(
      neighbour,
    );
  });
});

describe("a batch that fails", () => {
  it("keeps what it revoked, names the error, and the next batch goes on from the holder it stopped at", async () => {
    expect((await operator("POST", "/organizations", { id: "failco", name: "Fail Co" })).status).toBe(201);
    const clientId = await newClient("beyond-role");
    // orders.pii is beyond what a member (the default role) may grant: the sweep revokes it from each of them.
    const subjects = await seedHolders("failco", "failing", 30, [{ clientId, scope: ["orders.read", "orders.pii"] }]);
    const failingAfter40 = kvFailingAfter(40);

    const failed = await sweepBatch(failingAfter40, newSweep("failco"));
    expect(failed.phase).toBe("revoke");
    expect(failed.lastBatch).toEqual({ kvOperations: expect.any(Number), error: "KV unavailable" });
    expect(failed.revoked).toBeGreaterThan(0);
    expect(failed.revoked).toBeLessThan(30);
    const revokedFirst = subjects.filter((_, i) => i < failed.revoked);
    for (const subject of revokedFirst) expect(await grantedClients("failco", subject)).toEqual([]);

    expect(failed.kvOperations).toBe(failed.lastBatch?.kvOperations);

    // Taken up as a sweep stored before the total was counted: the total starts at this batch.
    const { kvOperations: _counted, ...storedBeforeTheTotal } = failed;
    const finished = await sweepBatch(workerEnv, storedBeforeTheTotal);
    expect(finished).toMatchObject({ phase: "finished", revoked: 30, batches: 2, lastBatch: { error: null } });
    expect(finished.kvOperations).toBe(finished.lastBatch?.kvOperations);
    for (const subject of subjects) expect(await grantedClients("failco", subject)).toEqual([]);
  });

  it("a budget smaller than one holder's grants still gets through them, a few grants per batch", async () => {
    expect((await operator("POST", "/organizations", { id: "manyco", name: "Many Co" })).status).toBe(201);
    const clients = await Promise.all(["a", "b", "c", "d", "e", "f"].map((name) => newClient(`many-${name}`)));
    const [subject] = await seedHolders(
      "manyco",
      "many",
      1,
      clients.map((clientId) => ({ clientId, scope: ["orders.pii"] })),
    );
    let state = newSweep("manyco");
    for (let batch = 0; batch < 20 && state.phase !== "finished"; batch++)
      state = await sweepBatch(workerEnv, state, 12);
    expect(state).toMatchObject({ phase: "finished", revoked: 6 });
    expect(state.batches).toBeGreaterThan(2);
    expect(await grantedClients("manyco", subject as string)).toEqual([]);
  });
});

describe("a member removed with more grants than the request reaches", () => {
  it("loses every grant: the request revokes what it can, the sweep the rest, even what the default role allows", async () => {
    const id = "removeco";
    expect((await operator("POST", "/organizations", { id, name: "Remove Co" })).status).toBe(201);
    const email = "rae@removeco.example";
    expect(
      (await operator("PUT", `/organizations/${id}/members/${encodeURIComponent(email)}`, { role: "developer" }))
        .status,
    ).toBe(200);
    const directory = env.DIRECTORY.get(env.DIRECTORY.idFromName("directory"));
    expect(await directory.admit(id, email, "rae-subject", "developer")).toEqual({ ok: true, role: "developer" });
    const clients = await Promise.all(["r1", "r2", "r3", "r4", "r5", "r6"].map((name) => newClient(`removed-${name}`)));
    // orders.read: what the organization's default role (member) may grant; a removed member keeps none of it.
    await seedSubject(
      id,
      "rae-subject",
      clients.map((clientId) => ({ clientId, scope: ["orders.read"] })),
    );

    // KV gives out after a few operations of the request's own revocation: the removal is still answered.
    const removed = await removeMember(kvFailingAfter(12), id, email, { kind: "operator" });
    expect(removed.member.status).toBe("removed");
    await sweepToTheEnd(id);
    expect(await grantedClients(id, "rae-subject")).toEqual([]);
  });
});
