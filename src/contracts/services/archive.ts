/**
 * An organization's contract data as its export archive takes it: every row of its store and of each project's
 * own store, and the content those stores keep in the bucket, read one object at a time.
 */
import type { Env } from "../../env";
import { organizationSpace, projectSpace, readBucketContent } from "../store/bucket";
import { projectStoreName } from "../store/project-homes";

type Tables = Record<string, Array<Record<string, unknown>>>;

export interface ContractsArchive {
  /** The organization store's tables, with `project_stores` (by project) when projects have stores of their own. */
  tables: Record<string, unknown>;
  /** The bucket content to add: `project` null for the organization store's. */
  content: Array<{ project: string | null; hash: string }>;
}

export async function contractsArchive(env: Env, organizationId: string): Promise<ContractsArchive> {
  const store = env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(organizationId));
  const [organizationTables, organizationHashes, projectNames] = await Promise.all([
    store.exportTables(),
    store.bucketContentHashes(),
    store.ownProjectNames(),
  ]);
  const projectStores: Record<string, Tables> = {};
  const content: ContractsArchive["content"] = organizationHashes.map((hash) => ({ project: null, hash }));
  for (const project of projectNames) {
    const projectStore = env.CONTRACT_STORE.get(
      env.CONTRACT_STORE.idFromName(projectStoreName(organizationId, project)),
    );
    const [tables, contentHashes] = await Promise.all([
      projectStore.exportTables(),
      projectStore.bucketContentHashes(),
    ]);
    projectStores[project] = tables;
    for (const hash of contentHashes) content.push({ project, hash });
  }
  const tables: Record<string, unknown> = Object.fromEntries(Object.entries(organizationTables));
  if (projectNames.length > 0) tables.project_stores = projectStores;
  return { tables, content };
}

/** One piece of archived content, or null when the bucket no longer has it. */
export function archivedContent(
  env: Env,
  organizationId: string,
  piece: { project: string | null; hash: string },
): Promise<Uint8Array | null> {
  const space =
    piece.project === null ? organizationSpace(organizationId) : projectSpace(organizationId, piece.project);
  return readBucketContent(env, space, piece.hash);
}
