/**
 * Project resolution rules shared by every spec tool and resource: a principal restricted to some projects (a CI
 * key's restriction, principal.projects) is held to them, and the session's selected project belongs to the
 * organization that selected it.
 */
import { describe, expect, it } from "vitest";
import { checkProjectAccess, rememberSelectedProject, resolveProjectName, selectedProject } from "../../../src/contracts/mcp/access";
import type { Principal, SessionState } from "../../../src/mcp/context";
import { ToolFailure } from "../../../src/mcp/context";
import { workerEnv } from "./helpers";

const principal = (extra: Partial<Principal> = {}): Principal => ({ organizationId: "acme", userId: "ana", clientId: "c", role: "admin", scopes: ["contracts.read"], ...extra });

function memorySession(): SessionState {
  const values = new Map<string, unknown>();
  return { get: async <T>(key: string) => values.get(key) as T | undefined, put: async (key, value) => void values.set(key, structuredClone(value)) };
}

function failureOf(work: () => unknown): ToolFailure {
  try {
    work();
  } catch (error) {
    if (error instanceof ToolFailure) return error;
    throw error;
  }
  throw new Error("expected a ToolFailure");
}

describe("project access", () => {
  it("holds a restricted principal to its projects", () => {
    const restricted = principal({ projects: ["orders"] });
    expect(() => checkProjectAccess(restricted, "orders")).not.toThrow();
    const refused = failureOf(() => checkProjectAccess(restricted, "billing"));
    expect(refused.outcome).toBe("rejected-by-policy");
    expect(refused.message).toMatch(/only use the projects orders; "billing" is not one of them/);
    expect(() => checkProjectAccess(principal({ projects: ["*"] }), "billing")).not.toThrow();
    expect(() => checkProjectAccess(principal(), "billing")).not.toThrow();
  });

  it("refuses names that are not project names", () => {
    expect(failureOf(() => checkProjectAccess(principal(), "../etc")).message).toMatch(/Invalid project name/);
  });

  it("keeps the selected project with its organization", async () => {
    const session = memorySession();
    const acme = { principal: principal(), session, env: workerEnv };
    await rememberSelectedProject(acme, "orders");
    expect(await selectedProject(acme)).toBe("orders");
    expect(await resolveProjectName(acme, undefined)).toBe("orders");
    expect(await resolveProjectName(acme, "billing")).toBe("billing");
    // The same session state seen with another organization's principal has no selection.
    const globex = { principal: principal({ organizationId: "globex" }), session, env: workerEnv };
    expect(await selectedProject(globex)).toBeUndefined();
    await expect(resolveProjectName(globex, undefined)).rejects.toThrow(/none is selected/);
    // A restricted principal cannot reach a project through the session default either.
    await expect(resolveProjectName({ ...acme, principal: principal({ projects: ["billing"] }) }, undefined)).rejects.toThrow(/not one of them/);
  });
});
