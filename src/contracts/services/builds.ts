/** Failed builds CI reports (a build that produced no snapshot), kept with the end of their log. */
import { MAX_LOG_EXCERPT_CHARS } from "../store/limits";
import type { BuildRecord, Page } from "../store/records";
import type { ContractsCaller } from "./caller";
import { storeFailure } from "./failure";
import { projectPage } from "./projects";
import { quotaUse, storageRefusal } from "./storage";
import { placeOf, projectStoreOf } from "./store-access";

export interface BuildReport {
  commit: string;
  branch: string | null;
  runUrl: string | null;
  log: string;
}

/** The end of a log, where the error usually is, marked when cut. */
export function logExcerpt(log: string): string {
  if (log.length <= MAX_LOG_EXCERPT_CHARS) return log;
  return `[... ${log.length - MAX_LOG_EXCERPT_CHARS} earlier characters cut ...]\n${log.slice(-MAX_LOG_EXCERPT_CHARS)}`;
}

/** Records a failed build of the project, refused like any write when the storage quota has no room for it. */
export async function recordBuild(caller: ContractsCaller, project: string, build: BuildReport): Promise<BuildRecord> {
  const excerpt = logExcerpt(build.log);
  const { organizationId, userId } = caller.principal;
  const full = await storageRefusal(caller.env, organizationId, await quotaUse(await placeOf(caller, project)), {
    project,
    bytes: excerpt.length,
  });
  if (full) throw storeFailure(full, project);
  const result = await (await projectStoreOf(caller, project)).recordBuild({
    project,
    commit: build.commit,
    branch: build.branch,
    runUrl: build.runUrl,
    logExcerpt: excerpt,
    recordedBy: userId,
  });
  if (!result.ok) throw storeFailure(result, project);
  return result.build;
}

/** The project's failed builds, newest first, a page at a time. */
export async function listBuilds(
  caller: ContractsCaller,
  project: string,
  page: { limit: number; before: number | null },
): Promise<Page<BuildRecord>> {
  return projectPage(caller, project, (store) => store.listBuilds(project, page.limit, page.before));
}
