// Every subject a member signed in with (src/directory/member-subjects.ts), on a directory from before that table:
// its first start copies the one subject each member row kept, so removing a member who signed in before the
// upgrade still revokes their grants.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { upgradeMemberSubjects } from "../../../src/directory/member-subjects";
import type { Env as WorkerEnv } from "../../../src/env";
import { call, restToken } from "../contracts-api/api-helpers";
import { operator } from "./helpers";

const bindings = env as unknown as WorkerEnv;
const directory = () => bindings.DIRECTORY.get(bindings.DIRECTORY.idFromName("directory"));

describe("member subjects on an upgraded directory", () => {
  it("keeps the subject a member row held before the upgrade, and removing the member revokes its grants", async () => {
    // Dani signs in (development sign-in, subject "dev") and holds a token.
    const token = await restToken("dev", "contracts.read");
    expect((await call(token, "GET", "/whoami")).status).toBe(200);

    // The directory as it was before the table: the member row alone names the subject.
    const subjects = await runInDurableObject(directory(), (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec("DROP TABLE member_subjects");
      const kept = sql
        .exec<{ subject: string }>(
          "SELECT subject FROM members WHERE organization_id = 'acme' AND email = ?",
          "dani@acme.example",
        )
        .toArray();
      expect(kept).toEqual([{ subject: "dev" }]);
      // What the object's constructor runs on its first start with this code.
      upgradeMemberSubjects(sql);
      upgradeMemberSubjects(sql); // and on every start after: nothing changes
      return sql
        .exec<{ subject: string }>(
          "SELECT subject FROM member_subjects WHERE organization_id = 'acme' AND email = ?",
          "dani@acme.example",
        )
        .toArray();
    });
    expect(subjects).toEqual([{ subject: "dev" }]);

    const removed = await operator("DELETE", "/organizations/acme/members/dani%40acme.example");
    expect(removed.status).toBe(200);
    expect(removed.body.grantsRevoked).toBeGreaterThanOrEqual(1);
    expect((await call(token, "GET", "/whoami")).status).toBe(401);
  });
});
