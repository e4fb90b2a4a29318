/**
 * A project's contract versions: the list, the active one, one version with its verdict, and activation under the
 * organization's breaking-changes policy. Uploading a version is `uploads.ts`.
 */
import { Failure } from "../../core/failure";
import { breakingChangesPolicy, type Verdict } from "../../engine";
import type { ContractRecord, Page } from "../store/records";
import type { ContractsCaller } from "./caller";
import { compareContracts } from "./drafts";
import { contractFailure, serviceFailure, storeFailure, unknownProjectFailure } from "./failure";
import { conformanceConfigFor } from "./organization-config";
import { projectPage } from "./projects";
import { projectStoreOf } from "./store-access";
import { findVerdict, verdictBody } from "./verdicts";

/** Error-severity findings of a contract comparison: the changes that break clients of the older version. */
export function breakingCount(verdict: Verdict): number {
  return verdict.violations.filter((violation) => violation.severity === "error").length;
}

/** What an answer says of a comparison: the version compared with, the counts and the findings. */
export function changeSummary(comparedWithVersion: number, verdict: Verdict) {
  return {
    comparedWithVersion,
    approved: verdict.approved,
    count: breakingCount(verdict),
    totalViolations: verdict.totalViolations,
    violations: verdict.violations,
    summary: verdict.summary,
  };
}

/** The project's contract versions, newest first, a page at a time. */
export async function listContracts(
  caller: ContractsCaller,
  project: string,
  page: { limit: number; before: number | null },
): Promise<Page<ContractRecord>> {
  return projectPage(caller, project, (store) => store.listContracts(project, page.limit, page.before));
}

/** The project's active contract; unknown_project when there is none. */
export async function activeContract(caller: ContractsCaller, project: string): Promise<ContractRecord> {
  const contract = await (await projectStoreOf(caller, project)).getActiveContract(project);
  if (!contract) throw unknownProjectFailure(project);
  return contract;
}

/** Contract `version` of the project, or null when there is no such version. */
export async function findContract(
  caller: ContractsCaller,
  project: string,
  version: number,
): Promise<ContractRecord | null> {
  return (await projectStoreOf(caller, project)).getContract(project, version);
}

/** Contract `version` of the project; unknown_contract when there is none. */
export async function requireContract(
  caller: ContractsCaller,
  project: string,
  version: number,
): Promise<ContractRecord> {
  const contract = await findContract(caller, project, version);
  if (!contract) throw contractFailure("unknown_contract", `Project "${project}" has no contract version ${version}.`);
  return contract;
}

/** Contract `version` with the verdict its upload recorded (null for a version uploaded without one). */
export async function contractWithVerdict(
  caller: ContractsCaller,
  project: string,
  version: number,
): Promise<{ contract: ContractRecord; verdict: Verdict | null }> {
  const contract = await requireContract(caller, project, version);
  const stored = contract.verdictId ? await findVerdict(caller, project, contract.verdictId) : null;
  return { contract, verdict: stored?.verdict ?? null };
}

/**
 * Contract `version` with the comparison stored at its upload (what it changed since the version active then), or
 * null when there is no such version. `compared` is false for a version that was compared with none (a project's
 * first); `changes` is null when the stored comparison cannot be read.
 */
export async function findContractChanges(
  caller: ContractsCaller,
  project: string,
  version: number,
): Promise<{ contract: ContractRecord; compared: boolean; changes: Verdict | null } | null> {
  const store = await projectStoreOf(caller, project);
  const contract = await store.getContract(project, version);
  if (!contract) return null;
  const hash = contract.changes ? await store.contractChangeHash(project, version) : null;
  if (!hash) return { contract, compared: false, changes: null };
  return { contract, compared: true, changes: await verdictBody(caller, project, hash) };
}

/**
 * Makes contract `version` the active one. Under the "refuse" policy a version that breaks clients of the active
 * one needs `allowBreaking`; `note` hears when such a version is activated anyway (the audit trail keeps it).
 */
export async function activateContract(
  caller: ContractsCaller,
  project: string,
  version: number,
  options: { allowBreaking: boolean; note?: (text: string) => void },
): Promise<ContractRecord> {
  await refuseBreakingActivation(caller, project, version, options);
  const result = await (await projectStoreOf(caller, project)).activateContract(project, version);
  if (!result.ok) throw storeFailure(result, project);
  return result.contract;
}

async function refuseBreakingActivation(
  caller: ContractsCaller,
  project: string,
  version: number,
  options: { allowBreaking: boolean; note?: (text: string) => void },
): Promise<void> {
  const { organizationId } = caller.principal;
  const config = await conformanceConfigFor(caller.env, organizationId);
  if (breakingChangesPolicy(config, organizationId) !== "refuse") return;
  const active = await (await projectStoreOf(caller, project)).getActiveContract(project);
  if (!active || active.version === version) return;
  const comparison = await compareContracts(caller.env, organizationId, project, active.version, { version });
  if (!comparison.ok) throw serviceFailure(comparison, project);
  const count = breakingCount(comparison.verdict);
  if (count === 0) return;
  if (options.allowBreaking) {
    options.note?.(`activated with ${count} breaking changes vs v${active.version} (allowBreaking)`);
    return;
  }
  throw new Failure(
    "conflict",
    `Contract version ${version} breaks clients of the active version ${active.version} (${count} breaking change${count === 1 ? "" : "s"}) and this organization's policy refuses that: review them, then activate with ?allowBreaking=true.`,
    { breakingChanges: changeSummary(active.version, comparison.verdict) },
    "breaking_changes",
  );
}
