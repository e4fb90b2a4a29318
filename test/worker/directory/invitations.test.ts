/**
 * An organization's invitations over REST (src/organizations/admin.ts, the directory's table): the list pages newest
 * first however many there are, and an administrator withdraws one that was not used, which stops its link at once.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { browserFetch, CookieJar } from "../helpers";
import { callJson, restToken } from "../contracts-api/api-helpers";
import { MAX_PENDING_INVITATIONS } from "../../../src/directory/store";

const directory = () => env.DIRECTORY.get(env.DIRECTORY.idFromName("directory"));

async function invite(token: string, email: string, role = "member"): Promise<{ id: string; path: string }> {
  const created = await callJson(token, "POST", "/organization/invitations", { email, role });
  expect(created.status).toBe(201);
  return { id: created.body.invitation.id, path: new URL(created.body.link).pathname };
}

describe("the invitations list", () => {
  it("pages newest first with ?limit= and ?before=, every invitation once, and refuses a bad page", async () => {
    const ana = await restToken("ana", "org.admin");
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await invite(ana, `paged-${i}@acme.example`)).id);

    const seen: string[] = [];
    let before: number | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=3${before === null ? "" : `&before=${before}`}`;
      const page = await callJson(ana, "GET", `/organization/invitations${query}`);
      expect(page.status).toBe(200);
      expect(page.body.invitations.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.invitations.map((invitation: { id: string }) => invitation.id));
      before = page.body.nextBefore;
      pages++;
    } while (before !== null && pages < 50);
    expect(before).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
    // Newest first: the seven just made are the first seven, in the reverse of the order they were made.
    expect(seen.slice(0, 7)).toEqual([...made].reverse());

    const all = await callJson(ana, "GET", "/organization/invitations");
    expect(all.body.invitations.map((invitation: { id: string }) => invitation.id)).toEqual(seen);
    expect(all.body.nextBefore).toBeNull();

    for (const query of ["?limit=0", "?limit=201", "?before=0", "?before=soon"]) {
      const refused = await callJson(ana, "GET", `/organization/invitations${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.detail, query).toMatch(/limit must be|before must be/);
    }
  });
});

describe("withdrawing an invitation", () => {
  it("stops its link at once, leaves it out of the list and logs it; a second withdrawal is a 404", async () => {
    const ana = await restToken("ana", "org.admin");
    const { id, path } = await invite(ana, "withdrawn@acme.example", "admin");
    expect((await browserFetch(new CookieJar(), path)).status).toBe(200);

    const withdrawn = await callJson(ana, "DELETE", `/organization/invitations/${id}`);
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.invitation).toMatchObject({ id, email: "withdrawn@acme.example", role: "admin" });

    const link = await browserFetch(new CookieJar(), path);
    expect(link.status).toBe(404);
    expect(await link.text()).toContain("not valid");
    const listed = (await callJson(ana, "GET", "/organization/invitations")).body.invitations;
    expect(listed.map((invitation: { id: string }) => invitation.id)).not.toContain(id);
    const changes = (await callJson(ana, "GET", "/organization/changes?limit=5")).body.changes;
    expect(changes[0]).toMatchObject({
      action: "invitation.withdrawn",
      before: { email: "withdrawn@acme.example", role: "admin" },
    });

    const again = await callJson(ana, "DELETE", `/organization/invitations/${id}`);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("unknown_invitation");
    expect(again.body.detail).toContain(id);
  });

  it("withdraws an expired one, refuses a used one (naming the member) and an id that is not one", async () => {
    const ana = await restToken("ana", "org.admin");
    const expired = await invite(ana, "late@acme.example");
    const used = await invite(ana, "used@acme.example");
    await runInDurableObject(directory(), (_instance, state) => {
      state.storage.sql.exec(`UPDATE invitations SET expires_at = 0 WHERE substr(token_hash, 1, 12) = ?`, expired.id);
      state.storage.sql.exec(
        `UPDATE invitations SET used_at = ?, used_by = 'used' WHERE substr(token_hash, 1, 12) = ?`,
        new Date().toISOString(),
        used.id,
      );
    });
    expect((await callJson(ana, "DELETE", `/organization/invitations/${expired.id}`)).status).toBe(200);

    const refused = await callJson(ana, "DELETE", `/organization/invitations/${used.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("invitation_used");
    expect(refused.body.detail).toContain("used@acme.example is a member now");
    const listed = (await callJson(ana, "GET", "/organization/invitations")).body.invitations;
    expect(listed.find((invitation: { id: string }) => invitation.id === used.id)).toMatchObject({ status: "used" });

    for (const bad of ["not-an-id", "ABCDEF012345", "0123456789abc"]) {
      const answer = await callJson(ana, "DELETE", `/organization/invitations/${bad}`);
      expect(answer.status, bad).toBe(400);
      expect(answer.body.code, bad).toBe("invalid_path");
      expect(answer.body.detail, bad).toContain("12 lower-case hexadecimal characters");
    }
  });

  it("is the organization's own: another organization's administrator gets a 404 and the link keeps working", async () => {
    const ana = await restToken("ana", "org.admin");
    const { id, path } = await invite(ana, "kept-invitation@acme.example");
    const gus = await restToken("gus", "org.admin");
    const foreign = await callJson(gus, "DELETE", `/organization/invitations/${id}`);
    expect(foreign.status).toBe(404);
    expect((await browserFetch(new CookieJar(), path)).status).toBe(200);
    const member = await restToken("mia", "contracts.read");
    expect((await callJson(member, "DELETE", `/organization/invitations/${id}`)).status).toBe(403);
  });

  it(`holds at most ${MAX_PENDING_INVITATIONS} pending: the next is refused naming how to make room, a withdrawal makes it`, async () => {
    const gus = await restToken("gus", "org.admin");
    // Pending invitations written straight into the directory, as an organization that invited that many holds them,
    // and as many used or expired ones, which do not count.
    await runInDurableObject(directory(), (_instance, state) => {
      const at = new Date().toISOString();
      for (let i = 0; i < MAX_PENDING_INVITATIONS * 2; i++)
        state.storage.sql.exec(
          `INSERT INTO invitations (token_hash, organization_id, email, role, created_by, created_at, expires_at, used_at)
           VALUES (?, 'globex', ?, 'member', 'gus', ?, ?, ?)`,
          `f00d${String(i).padStart(8, "0")}`.padEnd(64, "0"),
          `bulk-${i}@globex.example`,
          at,
          i % 2 === 0 ? Date.now() + 86_400_000 : 0,
          i % 4 === 1 ? at : null,
        );
    });
    const refused = await callJson(gus, "POST", "/organization/invitations", {
      email: "one-more@globex.example",
      role: "member",
    });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("too_many_invitations");
    expect(refused.body.detail).toContain(`${MAX_PENDING_INVITATIONS} pending invitations`);
    expect(refused.body.detail).toContain("DELETE /api/v1/organization/invitations/{id}");

    expect((await callJson(gus, "DELETE", "/organization/invitations/f00d00000000")).status).toBe(200);
    await invite(gus, "one-more@globex.example");
  });
});
