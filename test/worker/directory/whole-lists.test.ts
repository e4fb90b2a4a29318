/**
 * The whole member list (GET /api/v1/organization/members without limit) and the operator's whole organization list
 * come from the deployment's one directory object, which every organization's sign-ins and lookups wait on: they are
 * read READ_PER_CALL at a time (src/lib/page.ts), so no single directory call answers all of a long list.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { READ_PER_CALL } from "../../../src/lib/page";
import { listMembers, listOrganizations } from "../../../src/organizations/admin";
import { callJson, restToken } from "../contracts-api/api-helpers";
import { recordingCalls } from "../recorded-calls";

const directory = () => env.DIRECTORY.get(env.DIRECTORY.idFromName("directory"));

/** The Worker's env with the directory's `method` calls recorded, and the limit each call so far asked for. */
function recordingLimits(method: "members" | "list"): { env: Env; limits: () => Array<number | null> } {
  const { namespace, calls } = recordingCalls(env.DIRECTORY, method);
  const limitAt = method === "members" ? 1 : 0;
  return {
    env: { ...(env as unknown as Env), DIRECTORY: namespace },
    limits: () => calls.map((args) => (args[limitAt] as number | null) ?? null),
  };
}

describe("whole lists from the directory", () => {
  it("reads every member a bounded page per directory call, and answers them all as before", async () => {
    const seeded = 2 * READ_PER_CALL + 345;
    await runInDurableObject(directory(), (_instance, state) => {
      const at = new Date().toISOString();
      for (let i = 0; i < seeded; i++)
        state.storage.sql.exec(
          "INSERT INTO members (organization_id, email, role, status, subject, updated_at) VALUES ('acme', ?, 'member', 'active', NULL, ?)",
          `many-${String(i).padStart(5, "0")}@acme.example`,
          at,
        );
    });
    // Signing in first: an administrator's first sign-in lists them as a member.
    const ana = await restToken("ana", "org.admin");
    const { env: recordingEnv, limits } = recordingLimits("members");
    const { members, nextAfter } = await listMembers(recordingEnv, "acme");
    expect(nextAfter).toBeNull();
    expect(members.filter((member) => member.email.startsWith("many-"))).toHaveLength(seeded);
    expect(new Set(members.map((member) => member.email)).size).toBe(members.length);
    expect(limits().length).toBeGreaterThanOrEqual(3);
    expect(limits().every((limit) => limit !== null && limit <= READ_PER_CALL)).toBe(true);

    // Over REST, unchanged: without limit every member, with limit a page and where the next starts.
    const all = await callJson(ana, "GET", "/organization/members");
    expect(all.body.members).toHaveLength(members.length);
    expect(all.body.nextAfter).toBeNull();
    const page = await callJson(ana, "GET", "/organization/members?limit=10");
    expect(page.body.members).toHaveLength(10);
    expect(page.body.nextAfter).toBe(page.body.members[9].email);
  });

  it("reads every organization a bounded page per directory call", async () => {
    const seeded = READ_PER_CALL + 7;
    await runInDurableObject(directory(), (_instance, state) => {
      const at = new Date().toISOString();
      const settings = JSON.stringify({
        name: "Listed",
        emailDomains: [],
        claimValues: [],
        defaultRole: "member",
        membersOnly: false,
      });
      for (let i = 0; i < seeded; i++)
        state.storage.sql.exec(
          "INSERT INTO organizations (id, status, settings, revision, created_at, updated_at) VALUES (?, 'active', ?, 1, ?, ?)",
          `listed-${String(i).padStart(5, "0")}`,
          settings,
          at,
          at,
        );
    });
    const { env: recordingEnv, limits } = recordingLimits("list");
    const { organizations, nextAfter } = await listOrganizations(recordingEnv);
    expect(nextAfter).toBeNull();
    expect(organizations.filter((organization) => organization.id.startsWith("listed-"))).toHaveLength(seeded);
    expect(limits().length).toBeGreaterThanOrEqual(2);
    expect(limits().every((limit) => limit !== null && limit <= READ_PER_CALL)).toBe(true);
  });
});
