/**
 * A member's grants are kept by the OAuth library under one user id, `<organization>--<subject>` (grantUserId), and
 * the library lists, replaces and revokes them by that id alone. "shared" member "x--s" and "shared--x" member "s"
 * (an organization id from before new ids were refused "--") both get "shared--x--s": nothing done for one of them may
 * revoke, replace or count the other's grant. Grants are made by the library itself (completeAuthorization), with the
 * owner /authorize gives them (grantOwner).
 */
import { describe, expect, it } from "vitest";
import { newSweep, revokeSubjectsBeyond, sweepBatch } from "../../../src/oauth/grant-sweep";
import { hasLiveGrant } from "../../../src/oauth/live-grant";
import { grantUserId, grantUserIdIsAmbiguous } from "../../../src/oauth/servers";
import { grantAs, newClient, oauth, workerEnv } from "./grants";

/** Grants `clientId` to `subject` of `organizationId` as /authorize does; answers the grant's id. */
async function grant(organizationId: string, subject: string, clientId: string, scope: string[]): Promise<string> {
  const before = new Set((await grantsOf(organizationId, subject)).map((g) => g.id));
  await grantAs(organizationId, subject, clientId, scope);
  const made = (await grantsOf(organizationId, subject)).find((g) => !before.has(g.id));
  if (!made) throw new Error("no grant was made");
  return made.id;
}

/** Every grant listed under the user id of `subject` in `organizationId`, whichever organization made it. */
async function grantsOf(organizationId: string, subject: string) {
  return (await oauth().listUserGrants(grantUserId(organizationId, subject))).items;
}

describe("grant user ids that two organizations' members could share", () => {
  it("are told apart from the ids that read one way only", () => {
    expect(grantUserIdIsAmbiguous("acme", "alice")).toBe(false);
    expect(grantUserIdIsAmbiguous("acme-eu", "auth0|5f7c-8e1d")).toBe(false);
    expect(grantUserIdIsAmbiguous("acme", "x--s")).toBe(true);
    expect(grantUserIdIsAmbiguous("acme--x", "s")).toBe(true);
    expect(grantUserIdIsAmbiguous("acme-", "s")).toBe(true);
    expect(grantUserIdIsAmbiguous("acme", "-s")).toBe(true);
    expect(grantUserId("acme", "x--s")).toBe(grantUserId("acme--x", "s"));
  });

  it("a re-authorization replaces the member's earlier grant only when the id reads one way", async () => {
    const client = await newClient("replace-one-way");
    const first = await grant("replaceco", "alice", client, ["orders.read"]);
    const second = await grant("replaceco", "alice", client, ["orders.read"]);
    expect((await grantsOf("replaceco", "alice")).map((g) => g.id)).toEqual([second]);
    expect(second).not.toBe(first);

    const victim = await grant("shared", "x--s", client, ["orders.read"]);
    const other = await grant("shared--x", "s", client, ["orders.read"]);
    const ids = (await grantsOf("shared", "x--s")).map((g) => g.id).sort();
    expect(ids).toEqual([victim, other].sort());
  });

  it("a member's revocation, a deletion's sweep and the live-grant check reach their own organization's grants only", async () => {
    const client = await newClient("revoke-own");
    const victim = await grant("shared2", "x--s", client, ["orders.read"]);
    const other = await grant("shared2--x", "s", client, ["orders.read"]);

    expect(await hasLiveGrant(oauth(), "shared2", "x--s", client)).toBe(true);
    expect(await hasLiveGrant(oauth(), "shared2--x", "s", client)).toBe(true);

    // "shared2--x" removes its member "s": only that member's grant goes.
    const removed = await revokeSubjectsBeyond(workerEnv, "shared2--x", ["s"], []);
    expect(removed).toEqual({ revoked: 1, complete: true });
    expect((await grantsOf("shared2", "x--s")).map((g) => g.id)).toEqual([victim]);
    expect(other).not.toBe(victim);
    expect(await hasLiveGrant(oauth(), "shared2--x", "s", client)).toBe(false);
    expect(await hasLiveGrant(oauth(), "shared2", "x--s", client)).toBe(true);

    // "shared2--x" is deleted (the directory does not know it): its sweep revokes everything of its own, nothing else.
    const again = await grant("shared2--x", "s", client, ["orders.read"]);
    let state = newSweep("shared2--x");
    for (let batch = 0; batch < 5 && state.phase !== "finished"; batch++) state = await sweepBatch(workerEnv, state);
    expect(state.phase).toBe("finished");
    expect(state.revoked).toBe(1);
    const left = (await grantsOf("shared2", "x--s")).map((g) => g.id);
    expect(left).toEqual([victim]);
    expect(left).not.toContain(again);
  });
});
