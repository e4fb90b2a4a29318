/**
 * The `spec://` resource URIs of spec arbitration, in one place: the resources module serves them, the tools
 * point to them, and the verdict notifications (notifications/resources/updated) name them.
 *
 *   spec://active/contract                              the active contract of the session's selected project
 *   spec://projects/{project}/contracts/{version}       a contract version's document ({version}: a number or "active")
 *   spec://projects/{project}/verdicts/latest           the verdict of the project's latest snapshot (subscribable)
 *   (spec://active/contract and .../contracts/active are subscribable too: a new active contract is announced)
 *   spec://projects/{project}/verdicts/{snapshot}       the verdict of one snapshot (by snapshot id)
 */

export const ACTIVE_CONTRACT_URI = "spec://active/contract";

export const CONTRACT_URI_TEMPLATE = "spec://projects/{project}/contracts/{version}";
export const LATEST_VERDICT_URI_TEMPLATE = "spec://projects/{project}/verdicts/latest";
export const VERDICT_URI_TEMPLATE = "spec://projects/{project}/verdicts/{snapshot}";

export function contractUri(project: string, version: number | "active"): string {
  return `spec://projects/${project}/contracts/${version}`;
}

export function latestVerdictUri(project: string): string {
  return `spec://projects/${project}/verdicts/latest`;
}

export function verdictUri(project: string, snapshotId: number): string {
  return `spec://projects/${project}/verdicts/${snapshotId}`;
}

/** URIs whose content changes when CI stores a new snapshot verdict for `project`. */
export function urisChangedByNewVerdict(project: string): string[] {
  return [latestVerdictUri(project)];
}

/**
 * URIs whose content changes when `project` gets a new active contract (an upload, or an older version
 * activated). spec://active/contract changes only for sessions that selected `project`.
 */
export function urisChangedByNewActiveContract(project: string): string[] {
  return [contractUri(project, "active"), ACTIVE_CONTRACT_URI];
}

/** Every URI through which a session may follow `project`'s changes (what a subscriber record stands for). */
export function urisFollowingProject(project: string): string[] {
  return [latestVerdictUri(project), contractUri(project, "active"), ACTIVE_CONTRACT_URI];
}
