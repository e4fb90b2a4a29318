/**
 * Stored verdicts: the records (a project's list, one by id) and their bodies. Reading a verdict's body is written
 * here once, for every surface that shows one (REST, MCP tools and resources, the console, the checks).
 */
import type { Verdict } from "../../engine";
import { readVerdictBody } from "../store/client";
import type { Page, SnapshotRecord, VerdictRecord } from "../store/records";
import type { ContractsCaller } from "./caller";
import { contractFailure } from "./failure";
import { projectPage } from "./projects";
import { placeOf, projectStoreOf } from "./store-access";

/** A verdict record with its body (null when the body cannot be read). */
export interface StoredVerdict {
  record: VerdictRecord;
  verdict: Verdict | null;
}

/** The body stored under `verdictHash` in the project's store, or null when it cannot be read. */
export async function verdictBody(
  caller: ContractsCaller,
  project: string,
  verdictHash: string,
): Promise<Verdict | null> {
  return readVerdictBody(await placeOf(caller, project), verdictHash);
}

/** The verdict `id` of the project with its body, or null when the project has no such verdict. */
export async function findVerdict(caller: ContractsCaller, project: string, id: number): Promise<StoredVerdict | null> {
  const place = await placeOf(caller, project);
  const record = await place.store.getVerdict(project, id);
  return record ? { record, verdict: await readVerdictBody(place, record.verdictHash) } : null;
}

/** The project's verdicts, newest first, a page at a time. */
export async function listVerdicts(
  caller: ContractsCaller,
  project: string,
  page: { limit: number; before: number | null },
): Promise<Page<VerdictRecord>> {
  return projectPage(caller, project, (store) => store.listVerdicts(project, page.limit, page.before));
}

/** The verdict `id` with its body and, for a snapshot's verdict, the snapshot; unknown_verdict when there is none. */
export async function verdictWithSubject(
  caller: ContractsCaller,
  project: string,
  id: number,
): Promise<StoredVerdict & { snapshot: SnapshotRecord | null }> {
  const found = await findVerdict(caller, project, id);
  if (!found) throw contractFailure("unknown_verdict", `Project "${project}" has no verdict ${id}.`);
  const { snapshotId } = found.record;
  const snapshot =
    found.verdict && snapshotId !== null
      ? await (await projectStoreOf(caller, project)).getSnapshot(project, snapshotId)
      : null;
  return { ...found, snapshot };
}
