/**
 * An organization's projects as a caller sees them: the list (held to a CI key's projects), one project's status,
 * the refusal of a probable typo before an upload creates a project, and the row the console shows per project.
 */
import { closestName } from "../../lib/closest-name";
import { pageByName } from "../../lib/page";
import type { ProjectPlace } from "../store/client";
import type { AcceptedBreakRecord } from "../store/acceptance-table";
import type {
  BuildRecord,
  ContractRecord,
  ExchangeRunRecord,
  Page,
  ProjectRecord,
  ProjectStatus,
  SnapshotRecord,
  VerdictRecord,
} from "../store/records";
import type { ContractsCaller } from "./caller";
import { contractFailure, unknownProjectFailure } from "./failure";
import { projectRestriction } from "./project-access";
import { placeOf, projectStoreOf, storeOf } from "./store-access";

/**
 * The projects the caller may see, by name: at most `limit` of them, those after `after` when it is given. Without a
 * limit, every one, read READ_PER_CALL at a time, so no single call of the organization's store (which every upload
 * of the organization also calls) answers all of them.
 */
export async function listProjects(
  caller: ContractsCaller,
  page: { limit?: number | null; after?: string | null } = {},
): Promise<ProjectRecord[]> {
  const store = storeOf(caller);
  const restriction = projectRestriction(caller.principal);
  const read = (limit: number, after: string | null) => store.listProjects(restriction, limit, after);
  if (page.limit !== null && page.limit !== undefined) return read(page.limit, page.after ?? null);
  return (await pageByName(read, { limit: null, after: page.after ?? null }, (project) => project.name)).items;
}

/** How many projects the organization has and how many have no active contract (the console's overview). */
export function projectCounts(caller: ContractsCaller): Promise<{ total: number; withoutContract: number }> {
  return storeOf(caller).projectCounts();
}

/** Throws unknown_project unless the project exists. */
export async function requireProject(caller: ContractsCaller, project: string): Promise<void> {
  if (!(await (await projectStoreOf(caller, project)).getProject(project))) throw unknownProjectFailure(project);
}

/**
 * A contract upload creates its project when there is none. A name one keystroke from a project the caller can
 * see is much more likely a typo (`shpo` for `shop`) than a new API: refused with the closest name unless the
 * upload says it creates the project (?create=true).
 */
export async function refuseProbableTypo(caller: ContractsCaller, project: string): Promise<void> {
  if (await (await projectStoreOf(caller, project)).getProject(project)) return;
  const suggestion = closestName(
    project,
    await storeOf(caller).projectNamesNear(projectRestriction(caller.principal), project),
  );
  if (!suggestion) return;
  throw contractFailure(
    "unknown_project",
    `There is no project "${project}"; did you mean "${suggestion}"? Nothing was stored. To create a new project "${project}", upload again with ?create=true (arbiter contract --create).`,
    { suggestion, nextStep: `POST /api/v1/projects/${project}/contracts?create=true` },
  );
}

/** What the console's projects table shows of one project: its status, latest recorded traffic, active verdict. */
export interface ProjectRow {
  status: ProjectStatus;
  traffic: ExchangeRunRecord | null;
  activeVerdict: VerdictRecord | null;
}

export async function projectRow(caller: ContractsCaller, project: string): Promise<ProjectRow | null> {
  const { store } = await placeOf(caller, project);
  const [status, traffic] = await Promise.all([store.projectStatus(project), store.latestExchangeRun(project)]);
  if (!status) return null;
  const verdictId = status.activeContract?.verdictId ?? null;
  return { status, traffic, activeVerdict: verdictId === null ? null : await store.getVerdict(project, verdictId) };
}

/**
 * A page of the project's records, read by `list` from the project's store. An empty page is also what a project
 * that does not exist lists, so only then is the project looked up (unknown_project when there is none).
 */
export async function projectPage<T>(
  caller: ContractsCaller,
  project: string,
  list: (store: ProjectPlace["store"]) => Page<T> | Promise<Page<T>>,
): Promise<Page<T>> {
  const listed = await list(await projectStoreOf(caller, project));
  if (listed.items.length === 0) await requireProject(caller, project);
  return listed;
}

/** What a project's page shows: its status, the newest records of each kind, and what those rows refer to. */
export interface ProjectOverview {
  status: ProjectStatus;
  contracts: Page<ContractRecord>;
  /** The constitution verdict of each listed contract version, in the same order (null when it has none). */
  contractVerdicts: (VerdictRecord | null)[];
  snapshots: Page<SnapshotRecord>;
  /** Operations per contract version, for the versions the listed snapshots were checked against. */
  operations: Map<number, number>;
  builds: Page<BuildRecord>;
  acceptances: AcceptedBreakRecord[];
}

/** The newest `shown` records of the project with what they refer to, or null when there is no such project. */
export async function projectOverview(
  caller: ContractsCaller,
  project: string,
  shown: { contracts: number; snapshots: number; builds: number; acceptances: number },
): Promise<ProjectOverview | null> {
  const store = await projectStoreOf(caller, project);
  const status = await store.projectStatus(project);
  if (!status) return null;
  const [contracts, snapshots, builds, acceptances] = await Promise.all([
    store.listContracts(project, shown.contracts, null),
    store.listSnapshots(project, shown.snapshots, null),
    store.listBuilds(project, shown.builds, null),
    store.listAcceptedBreaks(project, shown.acceptances),
  ]);
  const contractVerdicts = await Promise.all(
    contracts.items.map((c) => (c.verdictId === null ? null : store.getVerdict(project, c.verdictId))),
  );
  const operations = new Map(contracts.items.map((c) => [c.version, c.operationCount]));
  for (const snapshot of snapshots.items) {
    if (!operations.has(snapshot.contractVersion)) {
      const contract = await store.getContract(project, snapshot.contractVersion);
      if (contract) operations.set(contract.version, contract.operationCount);
    }
  }
  return { status, contracts, contractVerdicts, snapshots, operations, builds, acceptances };
}
