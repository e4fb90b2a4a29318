/** A project's implementation snapshots as read back: the list, one snapshot, and one with its verdict. */
import type { Page, SnapshotRecord } from "../store/records";
import type { ContractsCaller } from "./caller";
import { contractFailure, unknownProjectFailure } from "./failure";
import { projectPage } from "./projects";
import { projectStoreOf } from "./store-access";
import { type StoredVerdict, findVerdict } from "./verdicts";

/** The project's snapshots, newest first, a page at a time. */
export async function listSnapshots(
  caller: ContractsCaller,
  project: string,
  page: { limit: number; before: number | null },
): Promise<Page<SnapshotRecord>> {
  return projectPage(caller, project, (store) => store.listSnapshots(project, page.limit, page.before));
}

/** Snapshot `id` of the project, or null when there is no such snapshot. */
export async function findSnapshot(
  caller: ContractsCaller,
  project: string,
  id: number,
): Promise<SnapshotRecord | null> {
  return (await projectStoreOf(caller, project)).getSnapshot(project, id);
}

/** Snapshot `id` of the project; unknown_snapshot when there is none. */
export async function requireSnapshot(caller: ContractsCaller, project: string, id: number): Promise<SnapshotRecord> {
  const snapshot = await findSnapshot(caller, project, id);
  if (!snapshot) throw contractFailure("unknown_snapshot", `Project "${project}" has no snapshot ${id}.`);
  return snapshot;
}

/** The id of the project's latest snapshot; unknown_project or no_snapshot when there is none. */
export async function latestSnapshotId(caller: ContractsCaller, project: string): Promise<number> {
  const status = await (await projectStoreOf(caller, project)).projectStatus(project);
  if (!status) throw unknownProjectFailure(project);
  if (!status.latestSnapshot)
    throw contractFailure(
      "no_snapshot",
      `Project "${project}" has no snapshot yet: upload one from CI (POST /api/v1/projects/${project}/snapshots).`,
    );
  return status.latestSnapshot.id;
}

/** The verdict recorded for `snapshot` with its body, or null when none was recorded (or it cannot be found). */
export function verdictOfSnapshot(caller: ContractsCaller, snapshot: SnapshotRecord): Promise<StoredVerdict | null> {
  return snapshot.verdictId === null
    ? Promise.resolve(null)
    : findVerdict(caller, snapshot.project, snapshot.verdictId);
}

/** Snapshot `id` with its verdict (record and body, each null when missing); unknown_snapshot when there is none. */
export async function snapshotWithVerdict(
  caller: ContractsCaller,
  project: string,
  id: number,
): Promise<{ snapshot: SnapshotRecord; stored: StoredVerdict | null }> {
  const snapshot = await requireSnapshot(caller, project, id);
  return { snapshot, stored: await verdictOfSnapshot(caller, snapshot) };
}
