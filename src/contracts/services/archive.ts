/**
 * An organization's contract data as its export archive takes it: every row of its store and of each project's
 * own store, then the content those stores keep in the bucket. It is produced as JSON text, a page of rows or of
 * documents at a time (about ARCHIVE_PAGE_BYTES each, or one larger document), so an organization of any size exports
 * in bounded memory and with one store call per page: no store answers more than a page, the Worker holds one piece
 * while the download takes it, and it reads nothing from the bucket itself (each store reads its own content).
 *
 * The text is the `contracts` value of `arbiter-organization-export/1` (docs/operations.md): the organization store's
 * tables by name, `project_stores` (by project, each its tables) when projects have stores of their own, and
 * `bucket_content` (`{ hash, base64 }`, with `project` for a project store's); `{}` for a purged store.
 */
import type { Env } from "../../env";
import { projectStoreName } from "../store/project-homes";
import type { ContractStoreRpc } from "../store/rpc";

/** About how much one page of rows takes in the archive. */
export const ARCHIVE_PAGE_BYTES = 2 * 1024 * 1024;

type Store = Pick<
  DurableObjectStub<ContractStoreRpc>,
  "exportTableNames" | "exportRows" | "bucketContentHashes" | "exportContent"
>;

/** Hashes named per content page asked of a store. */
const HASHES_PER_PAGE = 200;

/** One table as `"name":[rows]`, a page at a time. */
async function* tableText(store: Store, table: string, pageBytes: number): AsyncGenerator<string> {
  yield `${JSON.stringify(table)}:[`;
  let after: number | null = null;
  let first = true;
  for (;;) {
    const page = await store.exportRows(table, after, pageBytes);
    if (page.rows.length > 0) {
      yield `${first ? "" : ","}${page.rows.map((row) => JSON.stringify(row)).join(",")}`;
      first = false;
    }
    if (!page.more || page.lastRowid === null) break;
    after = page.lastRowid;
  }
  yield "]";
}

/** A store's tables as the members of a JSON object (without its braces); nothing for a store with no table. */
async function* tablesText(store: Store, pageBytes: number, names?: string[]): AsyncGenerator<string> {
  const tables = names ?? (await store.exportTableNames());
  for (const [index, table] of tables.entries()) {
    if (index > 0) yield ",";
    yield* tableText(store, table, pageBytes);
  }
}

/** The `contracts` value of the organization's archive, as pieces of JSON text. */
export async function* contractsArchiveText(
  env: Env,
  organizationId: string,
  pageBytes = ARCHIVE_PAGE_BYTES,
): AsyncGenerator<string> {
  const organization = env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(organizationId));
  const [tables, projects] = await Promise.all([organization.exportTableNames(), organization.ownProjectNames()]);
  if (tables.length === 0 && projects.length === 0) {
    // A purged store: no tables, no content.
    yield "{}";
    return;
  }
  const stores: Array<{ project: string | null; store: Store }> = [
    { project: null, store: organization },
    ...projects.map((project) => ({
      project,
      store: env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(projectStoreName(organizationId, project))),
    })),
  ];
  yield "{";
  yield* tablesText(organization, pageBytes, tables);
  if (projects.length > 0) {
    yield `${tables.length > 0 ? "," : ""}"project_stores":{`;
    for (const [index, { project, store }] of stores.slice(1).entries()) {
      yield `${index > 0 ? "," : ""}${JSON.stringify(project)}:{`;
      yield* tablesText(store, pageBytes);
      yield "}";
    }
    yield "}";
  }
  yield ',"bucket_content":[';
  let first = true;
  for (const { project, store } of stores) {
    // Each store reads its own bucket content, a page per call: the Worker makes no bucket read of its own.
    const hashes = await store.bucketContentHashes();
    for (let at = 0; at < hashes.length; ) {
      const page = await store.exportContent(hashes.slice(at, at + HASHES_PER_PAGE), pageBytes);
      for (const { hash, base64 } of page) {
        yield `${first ? "" : ","}${JSON.stringify(project === null ? { hash, base64 } : { project, hash, base64 })}`;
        first = false;
      }
      at += Math.max(1, page.length);
    }
  }
  yield "]}";
}
