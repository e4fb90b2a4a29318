/**
 * A platform-provider sign-in reads only the organizations its claims can name (the directory's signInCandidates),
 * not every organization's settings; the sign-in page asks only whether any has its own provider.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { anyOwnProvider, signInCandidates } from "../../../src/directory/client";
import type { Env } from "../../../src/env";
import { operator } from "./helpers";

const workerEnv = env as unknown as Env;

describe("the organizations a sign-in can name", () => {
  it("are those matching one of its claim values or its e-mail domain, active ones only", async () => {
    const made = [
      { id: "cand-one", name: "One", emailDomains: ["one.example"], claimValues: ["tenant-1", "shared"] },
      { id: "cand-two", name: "Two", emailDomains: ["Two.Example"], claimValues: ["tenant-2", "shared"] },
      { id: "cand-off", name: "Off", emailDomains: ["off.example"], claimValues: ["tenant-off"] },
    ];
    for (const organization of made) expect((await operator("POST", "/organizations", organization)).status).toBe(201);
    expect((await operator("POST", "/organizations/cand-off/suspend")).status).toBe(200);

    expect(Object.keys(await signInCandidates(workerEnv, ["tenant-1"], null))).toEqual(["cand-one"]);
    expect(Object.keys(await signInCandidates(workerEnv, ["shared"], null)).sort()).toEqual(["cand-one", "cand-two"]);
    expect(Object.keys(await signInCandidates(workerEnv, [], "two.example"))).toEqual(["cand-two"]);
    expect(Object.keys(await signInCandidates(workerEnv, ["tenant-1"], "two.example")).sort()).toEqual([
      "cand-one",
      "cand-two",
    ]);
    // A suspended organization, a value no one claims, a domain of a value's likeness: none.
    expect(await signInCandidates(workerEnv, ["tenant-off"], "off.example")).toEqual({});
    expect(await signInCandidates(workerEnv, ["tenant-"], "example")).toEqual({});
    expect((await signInCandidates(workerEnv, ["tenant-2"], null))["cand-two"]).toEqual({
      emailDomains: ["two.example"],
      claimValues: ["tenant-2", "shared"],
      defaultRole: "member",
      ownProvider: false,
    });
  });

  it("says whether any active organization signs its members in at its own provider", async () => {
    const stub = workerEnv.DIRECTORY.get(workerEnv.DIRECTORY.idFromName("directory"));
    const before = await stub.anyOwnProvider();
    const seeded = (await operator("GET", "/organizations")).body.organizations as Array<{
      status: string;
      settings: { signIn?: unknown };
    }>;
    expect(before).toBe(seeded.some((o) => o.status === "active" && o.settings.signIn !== undefined));
    expect(await anyOwnProvider(workerEnv)).toBe(before);
  });
});
