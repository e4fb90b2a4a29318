/**
 * An organization has at most the platform's maxMembersPerOrganization active members (10,000 unless the operator
 * says otherwise): every member is a row of the deployment's one directory object, and nothing else bounded how many
 * an administrator's PUTs, invitations or an open sign-in could add. Every way in is refused past it, with words that
 * say how to make room; a role change of a member and a removed member's row do not count.
 */
import { afterEach, describe, expect, it } from "vitest";
import { BASE, browserFetch, CookieJar, devSignIn } from "../helpers";
import { callJson, restToken } from "../contracts-api/api-helpers";
import { operator } from "./helpers";
import { signedIn, visibleText } from "../console/console-helpers";

/** The organization's active members now (tests in one file share its storage). */
async function activeMembers(token: string): Promise<number> {
  const members = (await callJson(token, "GET", "/organization/members")).body.members;
  return members.filter((member: { status: string }) => member.status === "active").length;
}

async function capAt(maxMembersPerOrganization: number): Promise<void> {
  const set = await operator("PUT", "/caps", { maxMembersPerOrganization });
  expect(set.status).toBe(200);
  expect(set.body.caps.maxMembersPerOrganization).toBe(maxMembersPerOrganization);
}

afterEach(async () => {
  expect((await operator("PUT", "/caps", {})).status).toBe(200);
});

describe("the member cap", () => {
  it("is 10,000 by default, set by the operator within 1 to 1,000,000", async () => {
    expect((await operator("GET", "/caps")).body.caps.maxMembersPerOrganization).toBe(10_000);
    for (const bad of [0, 1_000_001, 2.5]) {
      const refused = await operator("PUT", "/caps", { maxMembersPerOrganization: bad });
      expect(refused.status, String(bad)).toBe(400);
      expect(JSON.stringify(refused.body), String(bad)).toContain("maxMembersPerOrganization");
    }
  });

  it("is shown to the organization's administrators with what counts against it, over REST and in the console", async () => {
    const ana = await restToken("ana", "org.admin");
    await capAt(7);
    const invited = await callJson(ana, "POST", "/organization/invitations", {
      email: "z@acme.example",
      role: "member",
    });
    expect(invited.status).toBe(201);
    const active = await activeMembers(ana);
    const answer = await callJson(ana, "GET", "/organization");
    expect(answer.status).toBe(200);
    expect(answer.body.limits).toEqual({
      members: { active, max: 7 },
      pendingInvitations: { pending: 1, max: 1_000 },
      settings: { maxCallsPerMinute: 600, maxAuditRetentionDays: 365, maxSnapshotRetentionDays: 365 },
    });
    const page = await (await signedIn("ana")).get("/admin/organization");
    expect(visibleText(page.text)).toContain(`${active} active of at most 7; 1 pending invitations of at most 1,000.`);
    expect((await callJson(ana, "DELETE", `/organization/invitations/${invited.body.invitation.id}`)).status).toBe(200);
  });

  it("refuses a new member by PUT or invitation past it, naming how to make room; role changes still go", async () => {
    const ana = await restToken("ana", "org.admin");
    const before = await activeMembers(ana);
    await capAt(before + 2);
    for (const email of ["b@acme.example", "c@acme.example"])
      expect((await callJson(ana, "PUT", `/organization/members/${email}`, { role: "member" })).status).toBe(200);

    const refused = await callJson(ana, "PUT", "/organization/members/d@acme.example", { role: "member" });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("too_many_members");
    expect(refused.body.detail).toContain(`${before + 2} active members`);
    expect(refused.body.detail).toContain("DELETE /api/v1/organization/members/{email}");
    expect(refused.body.detail).toContain("maxMembersPerOrganization");
    const invited = await callJson(ana, "POST", "/organization/invitations", {
      email: "d@acme.example",
      role: "member",
    });
    expect(invited.status).toBe(409);
    expect(invited.body.code).toBe("too_many_members");
    const members = (await callJson(ana, "GET", "/organization/members")).body.members;
    expect(members.map((member: { email: string }) => member.email)).not.toContain("d@acme.example");

    // Someone already a member: a role change, or an invitation to a new role, takes no new row.
    expect((await callJson(ana, "PUT", "/organization/members/c@acme.example", { role: "analyst" })).status).toBe(200);
    const reinvited = await callJson(ana, "POST", "/organization/invitations", {
      email: "c@acme.example",
      role: "developer",
    });
    expect(reinvited.status).toBe(201);

    // A removed member's row keeps them out but takes no place.
    expect((await callJson(ana, "DELETE", "/organization/members/b@acme.example")).status).toBe(200);
    expect((await callJson(ana, "PUT", "/organization/members/d@acme.example", { role: "member" })).status).toBe(200);
  });

  it("refuses a first sign-in and an invitation's use past it, and lets them in once there is room", async () => {
    const ana = await restToken("ana", "org.admin");
    await capAt((await activeMembers(ana)) + 1);
    const invited = await callJson(ana, "POST", "/organization/invitations", {
      email: "mia@acme.example",
      role: "analyst",
    });
    expect(invited.status).toBe(201);
    expect((await callJson(ana, "PUT", "/organization/members/e@acme.example", { role: "member" })).status).toBe(200);

    // Mia is on no list: her sign-in would make her one member more than the cap.
    const signIn = await devSignIn(new CookieJar(), "mia", "/admin");
    expect(signIn.status).toBe(403);
    expect(await signIn.text()).toContain("as many members as this deployment allows");

    const jar = new CookieJar();
    const link = new URL(invited.body.link).pathname;
    await browserFetch(jar, link, { method: "POST", headers: { Origin: BASE } });
    const accepted = await devSignIn(jar, "mia", "/invitations/accepted");
    expect(accepted.status).toBe(409);
    const page = await accepted.text();
    expect(page).toContain("Invitation not accepted");
    expect(page).toContain("stays valid until it expires");
    const listed = (await callJson(ana, "GET", "/organization/invitations")).body.invitations;
    expect(listed.find((invitation: { email: string }) => invitation.email === "mia@acme.example")?.status).toBe(
      "pending",
    );

    expect((await callJson(ana, "DELETE", "/organization/members/e@acme.example")).status).toBe(200);
    const retry = new CookieJar();
    await browserFetch(retry, link, { method: "POST", headers: { Origin: BASE } });
    const admitted = await devSignIn(retry, "mia", "/invitations/accepted");
    expect(admitted.status).toBe(303);
    expect(await (await browserFetch(retry, "/invitations/accepted")).text()).toContain("<strong>analyst</strong>");
  });
});
