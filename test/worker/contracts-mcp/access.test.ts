/**
 * Project resolution rules shared by every spec tool and resource: a principal restricted to some projects (a CI
 * key's restriction, principal.projects) is held to them, and the default project (spec_project_select) belongs to
 * the user and organization that set it.
 */
import { describe, expect, it } from "vitest";
import {
  checkProjectAccess,
  rememberSelectedProject,
  resolveProjectName,
  selectedProject,
} from "../../../src/contracts/services/project-access";
import { SpecFailure } from "../../../src/contracts/services/failure";
import type { Principal } from "../../../src/core/principal";
import { workerEnv } from "./helpers";

const principal = (extra: Partial<Principal> = {}): Principal => ({
  organizationId: "acme",
  userId: "ana",
  clientId: "c",
  role: "admin",
  scopes: ["contracts.read"],
  ...extra,
});

function failureOf(work: () => unknown): SpecFailure {
  try {
    work();
  } catch (error) {
    if (error instanceof SpecFailure) return error;
    throw error;
  }
  throw new Error("expected a SpecFailure");
}

describe("project access", () => {
  it("holds a restricted principal to its projects", () => {
    const restricted = principal({ projects: ["orders"] });
    expect(() => checkProjectAccess(restricted, "orders")).not.toThrow();
    const refused = failureOf(() => checkProjectAccess(restricted, "billing"));
    expect(refused.outcome).toBe("rejected-by-policy");
    expect(refused.message).toMatch(/only be used for the projects orders; "billing" is not one of them/);
    expect(() => checkProjectAccess(principal({ projects: ["*"] }), "billing")).not.toThrow();
    expect(() => checkProjectAccess(principal(), "billing")).not.toThrow();
  });

  it("refuses names that are not project names", () => {
    expect(failureOf(() => checkProjectAccess(principal(), "../etc")).message).toMatch(/Invalid project name/);
  });

  it("keeps the default project with its user and organization", async () => {
    const acme = { principal: principal(), env: workerEnv };
    await rememberSelectedProject(acme, "orders");
    expect(await selectedProject(acme)).toBe("orders");
    expect(await resolveProjectName(acme, undefined)).toBe("orders");
    expect(await resolveProjectName(acme, "billing")).toBe("billing");
    // Another user of the organization, and the same user id in another organization, have no default.
    const colleague = { principal: principal({ userId: "dev" }), env: workerEnv };
    expect(await selectedProject(colleague)).toBeUndefined();
    const globex = { principal: principal({ organizationId: "globex" }), env: workerEnv };
    expect(await selectedProject(globex)).toBeUndefined();
    await expect(resolveProjectName(globex, undefined)).rejects.toThrow(/no default project/);
    // A restricted principal cannot reach a project through the default either.
    await expect(
      resolveProjectName({ ...acme, principal: principal({ projects: ["billing"] }) }, undefined),
    ).rejects.toThrow(/not one of them/);
  });
});
