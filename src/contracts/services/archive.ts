/**
 * An organization's contract data as its export archive takes it: every row of its store and of each project's
 * own store, then the content those stores keep in the bucket. It is produced as JSON text, a page of rows or of
 * documents at a time (about ARCHIVE_PAGE_BYTES each, or one larger document), so an organization of any size exports
 * in bounded memory and with one store call per page: no store answers more than a page, the Worker holds one piece
 * while the download takes it, and it reads nothing from the bucket itself (each store reads its own content).
 *
 * The reader's place is a plain value (ArchivePlace): the background export (src/organizations/exporter.ts) keeps it
 * between invocations and goes on from it, each row and each document after the last one it gave (by rowid, by
 * hash), so a row or document written meanwhile is in the archive once or not at all, never twice.
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

/** Where the archive's reader is: what it has given so far, as a value that can be stored and read back. */
export interface ArchivePlace {
  /** The projects with stores of their own, read when the archive starts; null before it does. */
  projects: string[] | null;
  /** The store being read: 0 the organization's, n the store of `projects[n - 1]`. */
  store: number;
  section: "tables" | "content" | "done";
  /** The current store's tables, read when the reader enters it. */
  tables: string[] | null;
  table: number;
  /** The last rowid given of the current table, the last hash given of the current store's content. */
  afterRowid: number | null;
  afterHash: string | null;
  /** Whether the current table (or the archive's content list) has had an element, which the next one follows. */
  started: boolean;
}

export function archiveStart(): ArchivePlace {
  return {
    projects: null,
    store: 0,
    section: "tables",
    tables: null,
    table: 0,
    afterRowid: null,
    afterHash: null,
    started: false,
  };
}

type Store = Pick<DurableObjectStub<ContractStoreRpc>, "exportTableNames" | "exportRows" | "exportContentAfter">;

function storeOf(env: Env, organizationId: string, place: ArchivePlace): Store {
  const project = place.store === 0 ? null : place.projects?.[place.store - 1];
  const name = project ? projectStoreName(organizationId, project) : organizationId;
  return env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(name));
}

/**
 * The next piece of the archive's text after `place`, and the place after it; null once the archive is whole. A
 * piece is one store call's worth (a page of rows or of documents), with the punctuation around it.
 */
export async function nextArchivePiece(
  env: Env,
  organizationId: string,
  place: ArchivePlace,
  pageBytes = ARCHIVE_PAGE_BYTES,
): Promise<{ text: string; place: ArchivePlace } | null> {
  if (place.section === "done") return null;
  if (place.projects === null) {
    const organization = env.CONTRACT_STORE.get(env.CONTRACT_STORE.idFromName(organizationId));
    const [tables, projects] = await Promise.all([organization.exportTableNames(), organization.ownProjectNames()]);
    // A purged store: no tables, no content.
    if (tables.length === 0 && projects.length === 0) return { text: "{}", place: { ...place, section: "done" } };
    return { text: "{", place: { ...place, projects, tables } };
  }
  const store = storeOf(env, organizationId, place);
  return place.section === "tables"
    ? tablesPiece(store, place, place.projects, pageBytes)
    : contentPiece(store, place, place.projects, pageBytes);
}

async function tablesPiece(
  store: Store,
  place: ArchivePlace,
  projects: string[],
  pageBytes: number,
): Promise<{ text: string; place: ArchivePlace }> {
  if (place.tables === null) {
    // Entering a project's store: its name opens its object in `project_stores`.
    const tables = await store.exportTableNames();
    const project = JSON.stringify(projects[place.store - 1]);
    return { text: `${place.store > 1 ? "," : ""}${project}:{`, place: { ...place, tables } };
  }
  const table = place.tables[place.table];
  if (table === undefined) return leaveStoreTables(place, projects);
  const page = await store.exportRows(table, place.afterRowid, pageBytes);
  const opening = place.afterRowid === null ? `${place.table > 0 ? "," : ""}${JSON.stringify(table)}:[` : "";
  const rows = page.rows.map((row) => JSON.stringify(row)).join(",");
  const text = `${opening}${place.started && rows ? "," : ""}${rows}`;
  if (page.more && page.lastRowid !== null)
    return { text, place: { ...place, afterRowid: page.lastRowid, started: place.started || rows !== "" } };
  return { text: `${text}]`, place: { ...place, table: place.table + 1, afterRowid: null, started: false } };
}

/** After a store's last table: the next project's store, else the content of every store. */
function leaveStoreTables(place: ArchivePlace, projects: string[]): { text: string; place: ArchivePlace } {
  const next = { ...place, store: place.store + 1, tables: null, table: 0, afterRowid: null, started: false };
  const hadTables = place.store > 0 || place.table > 0;
  if (place.store === 0 && projects.length > 0)
    return { text: `${hadTables ? "," : ""}"project_stores":{`, place: next };
  const closing = place.store === 0 ? "" : place.store === projects.length ? "}}" : "}";
  if (place.store > 0 && place.store < projects.length) return { text: closing, place: next };
  return { text: `${closing},"bucket_content":[`, place: { ...next, store: 0, section: "content", afterHash: null } };
}

async function contentPiece(
  store: Store,
  place: ArchivePlace,
  projects: string[],
  pageBytes: number,
): Promise<{ text: string; place: ArchivePlace }> {
  // Each store reads its own bucket content, a page per call: the Worker makes no bucket read of its own.
  const page = await store.exportContentAfter(place.afterHash, pageBytes);
  const project = place.store === 0 ? null : projects[place.store - 1];
  const entries = page.items.map(({ hash, base64 }) =>
    JSON.stringify(project ? { project, hash, base64 } : { hash, base64 }),
  );
  const text = `${place.started && entries.length > 0 ? "," : ""}${entries.join(",")}`;
  const started = place.started || entries.length > 0;
  if (page.more && page.lastHash !== null) return { text, place: { ...place, afterHash: page.lastHash, started } };
  if (place.store < projects.length)
    return { text, place: { ...place, store: place.store + 1, afterHash: null, started } };
  return { text: `${text}]}`, place: { ...place, section: "done" } };
}
