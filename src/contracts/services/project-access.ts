/**
 * Which project a spec call is about, and whether the caller may touch it. The organization always comes from the
 * verified principal (its ContractStore is the only one reached), so another organization's projects are simply
 * not there. A principal restricted to some projects (principal.projects) is held to them. Failures are
 * SpecFailures whose message says what to do next; their code names the case for clients.
 */
import type { Env } from "../../env";
import type { ContractsCaller, ContractsPrincipal } from "./caller";
import { contractStore } from "../store/client";
import { isProjectName, PROJECT_NAME_RULE, projectAllowed } from "../store/names";
import type { ProjectStatus } from "../store/records";
import { cannotVerify, unknownProjectFailure } from "./failure";
import { projectStoreOf, storeOf } from "./store-access";

type Context = ContractsCaller;

/** The projects a restricted principal may see, or null for all. */
export function projectRestriction(principal: ContractsPrincipal): string[] | null {
  return principal.projects && !principal.projects.includes("*") ? [...principal.projects] : null;
}

/** Throws unless `project` is a valid name the principal may touch (a CI key may be limited to some projects). */
export function checkProjectAccess(principal: ContractsPrincipal, project: string | undefined): string {
  if (!project || !isProjectName(project))
    throw cannotVerify(
      "invalid_project_name",
      `Invalid project name "${String(project).slice(0, 80)}": ${PROJECT_NAME_RULE}.`,
      "invalid-input",
    );
  if (!projectAllowed(principal.projects, project)) {
    throw cannotVerify(
      "project_not_allowed",
      `This key may only be used for the projects ${(principal.projects ?? []).join(", ")}; "${project}" is not one of them: ask an organization admin for a key that covers "${project}".`,
      "rejected-by-policy",
    );
  }
  return project;
}

/**
 * The caller's default project (set by spec_project_select): per user within the organization, not per MCP
 * session, so that 2026-07-28 clients (which have no session) and 2025-11-25 sessions see the same default.
 */
export async function selectedProject(context: Context): Promise<string | undefined> {
  return defaultProjectOf(context.env, context.principal.organizationId, context.principal.userId);
}

/** The default project of `userId` in `organizationId`, if any (also usable without a caller). */
export async function defaultProjectOf(env: Env, organizationId: string, userId: string): Promise<string | undefined> {
  return (await contractStore(env, organizationId).defaultProject(userId)) ?? undefined;
}

export async function rememberSelectedProject(context: Context, project: string): Promise<void> {
  await storeOf(context).setDefaultProject(context.principal.userId, project);
}

export const NO_PROJECT_MESSAGE =
  "No project was given and you have no default project: pass `project`, or call spec_project_select first to set your default (spec_projects_list shows your organization's projects).";

/** The explicit project, else the caller's default one; checked against the principal's restriction. */
export async function resolveProjectName(context: Context, explicit: string | undefined): Promise<string> {
  const project = explicit ?? (await selectedProject(context));
  if (project === undefined) throw cannotVerify("no_project_selected", NO_PROJECT_MESSAGE, "invalid-input");
  checkProjectAccess(context.principal, project);
  return project;
}

/** The project's status (active contract, latest snapshot, last failed build), or a failure naming the next step. */
export async function requireProjectStatus(context: Context, project: string): Promise<ProjectStatus> {
  const status = await (await projectStoreOf(context, project)).projectStatus(project);
  if (!status) throw unknownProjectFailure(project);
  return status;
}
