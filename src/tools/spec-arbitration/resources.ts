/**
 * The spec:// resources (URIs in uris.ts): the active contract of the session's selected project, contract
 * documents and verdicts by project and version, and the subscribable latest verdict of a project. Reads go
 * to the caller's own organization only; handled failures become JSON-RPC errors whose message says what to do.
 * A URI that matches a template but names nothing the caller can reach (a project of another organization, an
 * unknown one, a version or snapshot that does not exist) is answered with -32002 (resource not found), for reads
 * and subscriptions alike, and with the same words whether the project exists elsewhere or nowhere.
 */
import { snapshotVerdictStatement } from "../../contracts/verdict-statement";
import { Failure } from "../../core/failure";
import type { CallContext, CapabilityContext, ResourceContents } from "../../mcp/context";
import { ToolFailure } from "../../mcp/context";
import { resourceNotFound } from "../../mcp/governed-capabilities";
import {
  snapshotTitle,
  type ContractRecord,
  type ProjectRecord,
  type SnapshotRecord,
} from "../../contracts/store/records";
import { cannotVerify } from "../../contracts/services/failure";
import { checkProjectAccess, requireProjectStatus, selectedProject } from "../../contracts/services/project-access";
import { listProjects } from "../../contracts/services/projects";
import { listContracts } from "../../contracts/services/contract-versions";
import { findSnapshot, listSnapshots, verdictOfSnapshot } from "../../contracts/services/snapshots";
import { documentText } from "../../contracts/services/stored-content";
import { contractLabel, resolveContract } from "../../contracts/services/conformance";
import {
  activeContractChangedBy,
  forgetProjectSubscriber,
  recordProjectSubscriber,
  subscribeToActiveContract,
  unsubscribeFromActiveContract,
} from "./subscriptions";
import {
  ACTIVE_CONTRACT_URI,
  CONTRACT_URI_TEMPLATE,
  LATEST_VERDICT_URI_TEMPLATE,
  VERDICT_URI_TEMPLATE,
  contractUri,
  latestVerdictUri,
  verdictUri,
} from "./uris";

const READ = ["contracts.read"] as const;

/** Documents larger than this are not sent as a resource (a model cannot use them whole anyway). */
export const MAX_RESOURCE_DOCUMENT_BYTES = 4 * 1024 * 1024;
/** resources/list names a project's newest contract versions and verdicts, this many of each (templates reach all). */
const LISTED_PER_PROJECT = 10;

type Context = CallContext;

/** Failures (by `cannotVerify` reason) that mean the URI names no resource the caller can reach. */
const NOT_FOUND_REASONS = new Set([
  "invalid_project_name",
  "project_not_allowed",
  "unknown_project",
  "unknown_contract",
  "unknown_snapshot",
  "invalid_resource_variable",
]);

/**
 * Handled failures of a read or subscription as the resource failures they are, with their safe message:
 * not found (-32002) when `uri` names nothing the caller can reach, invalid input (-32602) otherwise.
 */
async function asResourceError<T>(uri: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof Failure)) throw error;
    const reason = String(error.details.cannotVerify ?? error.code);
    if (NOT_FOUND_REASONS.has(reason)) throw resourceNotFound(uri, error.message, reason);
    throw new Failure("invalid_input", error.message, error.details, error.code);
  }
}

/** The resource exists but cannot be served now; the message says what to do instead. */
function cannotServe(message: string): ToolFailure {
  return new ToolFailure("invalid-input", message);
}

function positiveInteger(text: string | undefined, what: string): number {
  if (text === undefined || !/^[1-9]\d{0,15}$/.test(text))
    throw cannotVerify(
      "invalid_resource_variable",
      `Invalid ${what} "${String(text).slice(0, 40)}": use a positive whole number.`,
      "invalid-input",
    );
  return Number(text);
}

function projectVariable(context: Context, variables: Record<string, string>): string {
  const project = variables.project ?? "";
  checkProjectAccess(context.principal, project);
  return project;
}

/** {version} of the contract template: undefined for "active", else the version number. */
function contractVersion(variables: Record<string, string>): number | undefined {
  return variables.version === "active" ? undefined : positiveInteger(variables.version, "contract version");
}

/** The snapshot {snapshot} of `project` names, or a not-found failure. */
async function snapshotOf(
  context: Context,
  project: string,
  variables: Record<string, string>,
): Promise<SnapshotRecord> {
  await requireProjectStatus(context, project);
  const id = positiveInteger(variables.snapshot, "snapshot id");
  const snapshot = await findSnapshot(context, project, id);
  if (!snapshot)
    throw cannotVerify(
      "unknown_snapshot",
      `Project "${project}" has no snapshot ${id}: spec_snapshots_list shows its snapshots.`,
      "invalid-input",
    );
  return snapshot;
}

export function documentMimeType(format: ContractRecord["format"]): string {
  return format === "yaml" ? "application/yaml" : "application/json";
}

async function contractDocument(context: Context, contract: ContractRecord): Promise<ResourceContents> {
  const download = `GET /api/v1/projects/${contract.project}/contracts/${contract.version}/document`;
  if (contract.size > MAX_RESOURCE_DOCUMENT_BYTES) {
    throw cannotServe(
      `Contract ${contractLabel(contract)} of "${contract.project}" is ${contract.size} bytes, more than the ${MAX_RESOURCE_DOCUMENT_BYTES} bytes served as a resource: download it with ${download}.`,
    );
  }
  const text = await documentText(context, contract.project, contract.contentHash);
  if (text === null)
    throw cannotServe(
      `The stored document of contract ${contractLabel(contract)} of "${contract.project}" cannot be read: upload the contract again.`,
    );
  return { text, mimeType: documentMimeType(contract.format) };
}

async function snapshotVerdictContents(
  context: Context,
  project: string,
  snapshot: SnapshotRecord,
  extra: Record<string, unknown> = {},
): Promise<ResourceContents> {
  const verdict = (await verdictOfSnapshot(context, snapshot))?.verdict;
  if (!verdict)
    throw cannotServe(
      `The verdict of snapshot ${snapshot.id} of "${project}" cannot be read: call check_api_conformance to check the snapshot again.`,
    );
  return {
    mimeType: "application/json",
    text: JSON.stringify({ project, snapshot, contractVersion: snapshot.contractVersion, ...extra, verdict }, null, 2),
  };
}

/** Projects read per call while a list walks them. */
const PROJECTS_PER_READ = 100;

/**
 * A page of the entries `entriesOf` gives for the caller's projects, by project name from `page.after`: whole
 * projects until at least `page.limit` entries, the projects read a page at a time, so an organization with thousands
 * of projects is not read whole for one page. `nextAfter`: the last project listed, null once none is left.
 */
async function listedEntries<T>(
  context: Context,
  page: { after: string | null; limit: number },
  entriesOf: (project: ProjectRecord) => T[] | Promise<T[]>,
): Promise<{ items: T[]; nextAfter: string | null }> {
  const items: T[] = [];
  let after = page.after;
  for (;;) {
    const projects = await listProjects(context, { limit: PROJECTS_PER_READ, after });
    for (const project of projects) {
      items.push(...(await entriesOf(project)));
      if (items.length >= page.limit) return { items, nextAfter: project.name };
    }
    if (projects.length < PROJECTS_PER_READ) return { items, nextAfter: null };
    after = projects[projects.length - 1]!.name;
  }
}

export function registerSpecResources(ctx: CapabilityContext): void {
  ctx.registerResource({
    name: "active-contract",
    uri: ACTIVE_CONTRACT_URI,
    title: "Active contract of your default project",
    description:
      "The OpenAPI document of the active contract of your default project (set with spec_project_select; kept per user, in both protocol eras). Read it before writing code: the contract is the source of truth for paths, parameters, status codes and schemas. Subscribe to it to hear when the project gets a new active contract.",
    mimeType: "application/json",
    requiredScopes: READ,
    read: (context) =>
      asResourceError(ACTIVE_CONTRACT_URI, async () => {
        const project = await selectedProject(context);
        if (project === undefined) {
          throw cannotServe(
            `You have no default project, so there is no active contract to show: call spec_project_select first, or read ${contractUri("<project>", "active")} directly (spec_projects_list shows the projects).`,
          );
        }
        checkProjectAccess(context.principal, project);
        const status = await requireProjectStatus(context, project);
        return contractDocument(context, await resolveContract(context, project, undefined, status.activeContract));
      }),
    subscribe: (context) => asResourceError(ACTIVE_CONTRACT_URI, () => subscribeToActiveContract(context)),
    unsubscribe: (context) => asResourceError(ACTIVE_CONTRACT_URI, () => unsubscribeFromActiveContract(context)),
    changedBy: (project, view) => activeContractChangedBy(project, view),
  });

  ctx.registerResourceTemplate({
    name: "project-contract",
    uriTemplate: CONTRACT_URI_TEMPLATE,
    title: "Contract version of a project",
    description:
      'The OpenAPI document of one contract version of a project; {version} is a version number or "active". Subscribe to .../contracts/active to hear when the project gets a new active contract (numbered versions never change).',
    mimeType: "application/json",
    requiredScopes: READ,
    async list(context, page) {
      return listedEntries(context, page, async ({ name: project, contractCount }) => {
        if (contractCount === 0) return [];
        const { items: contracts } = await listContracts(context, project, { limit: LISTED_PER_PROJECT, before: null });
        return contracts.map((contract) => ({
          uri: contractUri(project, contract.version),
          name: `${project} contract ${contractLabel(contract)}`,
          title: `${project}: contract ${contractLabel(contract)}${contract.active ? " (active)" : ""}`,
        }));
      });
    },
    read: (uri, variables, context) =>
      asResourceError(uri, async () => {
        const project = projectVariable(context, variables);
        const status = await requireProjectStatus(context, project);
        return contractDocument(
          context,
          await resolveContract(context, project, contractVersion(variables), status.activeContract),
        );
      }),
    // Only "active" changes; a numbered version is immutable, so subscribing to one only checks that it exists.
    subscribe: (uri, variables, context) =>
      asResourceError(uri, async () => {
        const project = projectVariable(context, variables);
        const version = contractVersion(variables);
        if (version === undefined) return recordProjectSubscriber(context, project);
        await requireProjectStatus(context, project);
        await resolveContract(context, project, version, null);
      }),
    unsubscribe: (uri, variables, context) =>
      asResourceError(uri, async () => {
        if (variables.version === "active") await forgetProjectSubscriber(context, projectVariable(context, variables));
      }),
    follow: (uri, variables, context) =>
      asResourceError(uri, async () => {
        const project = projectVariable(context, variables);
        const version = contractVersion(variables);
        await requireProjectStatus(context, project);
        if (version !== undefined) await resolveContract(context, project, version, null);
      }),
  });

  // Registered before the {snapshot} template so that ".../verdicts/latest" is this resource.
  ctx.registerResourceTemplate({
    name: "project-latest-verdict",
    uriTemplate: LATEST_VERDICT_URI_TEMPLATE,
    title: "Latest verdict of a project",
    description:
      "The conformance verdict of the project's latest snapshot (uploaded by CI). Subscribe to it (resources/subscribe) to receive notifications/resources/updated whenever CI uploads a new snapshot.",
    mimeType: "application/json",
    requiredScopes: READ,
    async list(context, page) {
      return listedEntries(context, page, (project) =>
        project.latestSnapshotId === null
          ? []
          : [
              {
                uri: latestVerdictUri(project.name),
                name: `${project.name} latest verdict`,
                title: `${project.name}: latest verdict`,
              },
            ],
      );
    },
    read: (uri, variables, context) =>
      asResourceError(uri, async () => {
        const project = projectVariable(context, variables);
        const status = await requireProjectStatus(context, project);
        if (!status.latestSnapshot) {
          throw cannotServe(
            `Project "${project}" has no snapshot yet: upload one from CI (POST /api/v1/projects/${project}/snapshots). Subscribe to this resource to hear when it arrives.`,
          );
        }
        const build =
          status.lastBuildFailed && status.latestFailedBuild
            ? {
                lastBuildFailed: {
                  commit: status.latestFailedBuild.commit,
                  recordedAt: status.latestFailedBuild.recordedAt,
                },
              }
            : {};
        const statement = snapshotVerdictStatement(
          status.latestSnapshot,
          status.activeContract?.version ?? null,
          project,
        );
        const judged = {
          activeContractVersion: status.activeContract?.version ?? null,
          judgedAgainstActive: statement.judgedAgainstActive,
          ...(statement.staleNote ? { note: statement.staleNote } : {}),
        };
        return snapshotVerdictContents(context, project, status.latestSnapshot, { ...judged, ...build });
      }),
    subscribe: (uri, variables, context) =>
      asResourceError(uri, () => recordProjectSubscriber(context, projectVariable(context, variables))),
    unsubscribe: (uri, variables, context) =>
      asResourceError(uri, () => forgetProjectSubscriber(context, projectVariable(context, variables))),
    follow: (uri, variables, context) =>
      asResourceError(uri, async () => void (await requireProjectStatus(context, projectVariable(context, variables)))),
  });

  ctx.registerResourceTemplate({
    name: "project-verdict",
    uriTemplate: VERDICT_URI_TEMPLATE,
    title: "Verdict of a snapshot",
    description:
      "The conformance verdict recorded for one snapshot of a project ({snapshot} is the snapshot id), against the contract version it was checked with.",
    mimeType: "application/json",
    requiredScopes: READ,
    async list(context, page) {
      return listedEntries(context, page, async ({ name: project, snapshotCount }) => {
        if (snapshotCount === 0) return [];
        const { items: snapshots } = await listSnapshots(context, project, { limit: LISTED_PER_PROJECT, before: null });
        return snapshots.map((snapshot) => ({
          uri: verdictUri(project, snapshot.id),
          name: `${project} verdict ${snapshot.id}`,
          title: `${project}: verdict of ${snapshotTitle(snapshot)}`,
        }));
      });
    },
    read: (uri, variables, context) =>
      asResourceError(uri, async () => {
        const project = projectVariable(context, variables);
        return snapshotVerdictContents(context, project, await snapshotOf(context, project, variables));
      }),
    // A snapshot's verdict never changes: subscribing only checks that the snapshot exists.
    subscribe: (uri, variables, context) =>
      asResourceError(
        uri,
        async () => void (await snapshotOf(context, projectVariable(context, variables), variables)),
      ),
    follow: (uri, variables, context) =>
      asResourceError(
        uri,
        async () => void (await snapshotOf(context, projectVariable(context, variables), variables)),
      ),
  });
}
