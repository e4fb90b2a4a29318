/**
 * The conformance check behind check_api_conformance (and anything else that asks for a verdict): decides whether the check can run (project, contract,
 * snapshot, build state, readable documents) and returns the verdict. The verdict stored at upload is reused when
 * the snapshot was checked against the very contract version asked for; otherwise (another version, or the active
 * contract changed since) the engine runs on the stored documents. A rejected implementation is a normal outcome;
 * only "cannot verify" cases throw (SpecFailure), each with the next step.
 */
import { conformanceConfigFor } from "./organization-config";
import { checkConformance } from "../../engine";
import { verdictOfSnapshot } from "./snapshots";
import type { BuildRecord, ContractRecord, SnapshotRecord } from "../store/records";
import type { Verdict } from "../../engine";
import type { AcceptedBreak } from "../../engine";
import { fingerprintOf, withAcceptances } from "./acceptances";
import { withUsageEvidence } from "./usage";
import { loadDocument } from "./documents";
import { cannotVerify } from "./failure";
import { requireProjectStatus } from "./project-access";
import { projectStoreOf } from "./store-access";
import type { ContractsCaller } from "./caller";

type Context = ContractsCaller;

export interface ConformanceRequest {
  project: string;
  /** A snapshot id; default: the latest snapshot. */
  snapshotId?: number;
  /** A contract version; default: the active contract. */
  contractVersion?: number;
}

export interface ConformanceOutcome {
  project: string;
  contract: ContractRecord;
  snapshot: SnapshotRecord;
  verdict: Verdict;
  /** "stored": the verdict recorded when CI uploaded the snapshot; "computed": checked now. */
  source: "stored" | "computed";
}

const LOG_TAIL_CHARS = 1500;

export function contractLabel(contract: Pick<ContractRecord, "version" | "label">): string {
  return `v${contract.version}${contract.label ? ` (${contract.label})` : ""}`;
}

/**
 * The log's end goes into the result's _meta, not the message: the message is also the audit record's reason,
 * which must not carry build output (it may hold anything a build printed).
 */
function buildFailed(build: BuildRecord) {
  return cannotVerify(
    "build_failed",
    // "last build failed at <commit>: fix the build first" is the promised wording; details only follow it.
    `The last build failed at ${build.commit}: fix the build first, then let CI upload a new snapshot and check again.` +
      (build.branch ? ` Branch: ${build.branch}.` : "") +
      (build.runUrl ? ` CI run: ${build.runUrl}.` : "") +
      ` The end of the build log is in this result's _meta.buildLogTail; the whole excerpt is at GET /api/v1/projects/${build.project}/builds.`,
    "error",
    { failedCommit: build.commit, buildLogTail: build.logExcerpt.trim().slice(-LOG_TAIL_CHARS) },
  );
}

export async function resolveContract(
  context: Context,
  project: string,
  version: number | undefined,
  active: ContractRecord | null,
): Promise<ContractRecord> {
  if (version === undefined) {
    if (!active) {
      throw cannotVerify(
        "no_active_contract",
        `Project "${project}" has no active contract, so there is nothing to check against: upload one (POST /api/v1/projects/${project}/contracts) or activate a version.`,
      );
    }
    return active;
  }
  const contract = await (await projectStoreOf(context, project)).getContract(project, version);
  if (!contract)
    throw cannotVerify(
      "unknown_contract",
      `Project "${project}" has no contract version ${version}: call spec_contracts_list to see its versions.`,
      "invalid-input",
    );
  return contract;
}

/**
 * Whether a stored verdict stands with the acceptances in force now: every one it applied is still in force, and
 * no error it lists is one an acceptance in force names.
 */
function sameAcceptances(verdict: Verdict, acceptances: readonly AcceptedBreak[]): boolean {
  const inForce = new Set(acceptances.map((acceptance) => acceptance.id));
  const fingerprints = new Set(acceptances.map((acceptance) => acceptance.fingerprint));
  return verdict.violations.every((violation) =>
    violation.acceptance
      ? inForce.has(violation.acceptance.id)
      : violation.severity !== "error" || !fingerprints.has(fingerprintOf(violation)),
  );
}

export async function runConformanceCheck(context: Context, request: ConformanceRequest): Promise<ConformanceOutcome> {
  const { project } = request;
  const status = await requireProjectStatus(context, project);
  const contract = await resolveContract(context, project, request.contractVersion, status.activeContract);

  let snapshot: SnapshotRecord;
  if (request.snapshotId === undefined) {
    // The latest snapshot does not describe the current code when a later build failed.
    if (status.lastBuildFailed && status.latestFailedBuild) throw buildFailed(status.latestFailedBuild);
    if (!status.latestSnapshot) {
      throw cannotVerify(
        "no_snapshot",
        `Project "${project}" has no snapshot yet: upload one from CI (the arbiter CLI, or POST /api/v1/projects/${project}/snapshots with the implementation's generated OpenAPI document), then check again.`,
      );
    }
    snapshot = status.latestSnapshot;
  } else {
    const found = await (await projectStoreOf(context, project)).getSnapshot(project, request.snapshotId);
    if (!found)
      throw cannotVerify(
        "unknown_snapshot",
        `Project "${project}" has no snapshot ${request.snapshotId}: call spec_snapshots_list to see its snapshots.`,
        "invalid-input",
      );
    snapshot = found;
  }

  // A stored verdict is the answer unless accepted breaks changed since: one in force now that it did not apply,
  // or one it applied that is no longer in force (expired or revoked); then the check runs again.
  const acceptances = await (await projectStoreOf(context, project)).acceptancesInForce(project);
  if (snapshot.contractVersion === contract.version) {
    const verdict = (await verdictOfSnapshot(context, snapshot))?.verdict ?? null;
    if (verdict && sameAcceptances(verdict, acceptances))
      return { project, contract, snapshot, verdict, source: "stored" };
  }
  const config = withAcceptances(
    await conformanceConfigFor(context.env, context.principal.organizationId),
    acceptances,
  );
  const contractDocument = await loadDocument(context.env, context.principal.organizationId, contract);
  if (!contractDocument) {
    throw cannotVerify(
      "document_unreadable",
      `The stored document of contract ${contractLabel(contract)} of "${project}" cannot be read: upload the contract again (POST /api/v1/projects/${project}/contracts).`,
    );
  }
  const snapshotDocument = await loadDocument(context.env, context.principal.organizationId, snapshot);
  if (!snapshotDocument) {
    throw cannotVerify(
      "document_unreadable",
      `The stored document of snapshot ${snapshot.id} (commit ${snapshot.commit}) of "${project}" cannot be read: let CI upload the snapshot again.`,
    );
  }
  return {
    project,
    contract,
    snapshot,
    verdict: await withUsageEvidence(
      context.env,
      context.principal.organizationId,
      project,
      checkConformance(contractDocument, snapshotDocument, config),
      config,
    ),
    source: "computed",
  };
}
