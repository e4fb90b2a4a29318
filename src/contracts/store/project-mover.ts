/**
 * The organization's store's side of moving projects created before the split into stores of their own
 * (docs/storage.md "Projects from before the split"; the rows are read and written by project-move.ts). It also
 * routes calls for such a project while and after it moves: a write waits for a move in progress and then goes to
 * the project's own store once it lives there; a write made here is counted as in progress, so a move starts only
 * after it; a read that reaches this store after the move (its caller asked where the project lived just before) is
 * answered by the project's own store.
 */
import type { Env } from "../../env";
import { logWarn } from "../../lib/log";
import { getBlob, type ContentPieces } from "./blob-table";
import { bucketContentSize, deleteBucketContent, projectSpace, putBucketContent, readBucketContent } from "./bucket";
import { getProject } from "./ledger-table";
import {
  deleteProjectRows,
  MOVED_TABLES,
  projectBucketContent,
  projectRowCounts,
  projectRowsPage,
} from "./project-move";
import { hasOwnHome, putSummary } from "./project-homes";
import { collectContent, RETENTION_INTERVAL_MS } from "./retention-table";
import type { ContractStoreRpc } from "./rpc";

/** How long content a moved project's records named stays in the organization's store after the move. */
const MOVED_CONTENT_GRACE_MS = 60_000;

/** How long after a store with projects from before the split starts it begins moving them (one per alarm run). */
export const MOVE_START_DELAY_MS = 5 * 60_000;

/** How long after a failed move the next attempt is made. */
const MOVE_RETRY_MS = 10 * 60_000;

/** What the mover needs of the organization's store it runs in. */
export interface MoverContext {
  readonly sql: SqlStorage;
  readonly storage: DurableObjectStorage;
  readonly env: Env;
  readonly organizationId: string;
  /** The organization's store's bucket space. */
  readonly space: string;
  /** A project's own store, called as a ContractStore. */
  projectStore(project: string): ContractStoreRpc;
}

export interface MoveResult {
  moved: boolean;
  rows: number;
  contentObjects: number;
  message: string;
}

export class ProjectMover {
  /** Moves in progress: writes to the project wait for them. */
  private readonly moves = new Map<string, Promise<void>>();
  /** Writes in progress per project: a move starts once they are done. */
  private readonly writing = new Map<string, number>();

  constructor(private readonly context: MoverContext) {}

  /** Projects still in the organization's store (created before the split). */
  legacyProjectNames(): string[] {
    return this.context.sql
      .exec<{ name: string }>(
        "SELECT name FROM projects WHERE name NOT IN (SELECT name FROM project_homes) ORDER BY name",
      )
      .toArray()
      .map((row) => row.name);
  }

  /** The project's own store when the project has moved out of this store, else null (read it here). */
  movedTo(project: string): ContractStoreRpc | null {
    return hasOwnHome(this.context.sql, project) ? this.context.projectStore(project) : null;
  }

  /**
   * Runs a write to `project`: after a move of it in progress, in its own store when it lives there (`there`, with
   * the content the Worker put in this store's bucket space copied to the project's first), else here.
   */
  async writeTo<T>(
    project: string,
    here: () => Promise<T> | T,
    there: (own: ContractStoreRpc) => Promise<T>,
    content: ReadonlyArray<ContentPieces | null> = [],
  ): Promise<T> {
    await this.moves.get(project);
    if (hasOwnHome(this.context.sql, project)) {
      await this.copyToProjectSpace(project, content);
      return there(this.context.projectStore(project));
    }
    this.writing.set(project, (this.writing.get(project) ?? 0) + 1);
    try {
      return await here();
    } finally {
      const left = (this.writing.get(project) ?? 1) - 1;
      if (left > 0) this.writing.set(project, left);
      else this.writing.delete(project);
    }
  }

  /** Content the Worker put in this store's bucket space, copied to the project's before a write goes there. */
  private async copyToProjectSpace(project: string, contents: ReadonlyArray<ContentPieces | null>): Promise<void> {
    const { env, organizationId, space } = this.context;
    const target = projectSpace(organizationId, project);
    for (const content of contents) {
      if (!content?.inBucket || (await bucketContentSize(env, target, content.hash)) === content.size) continue;
      const bytes = await readBucketContent(env, space, content.hash);
      if (bytes) await putBucketContent(env, target, content.hash, bytes);
    }
  }

  /**
   * An alarm run's share of moving: deletes content moved projects no longer need, then moves the next project from
   * before the split; answers in how many milliseconds the alarm should come back for the rest.
   */
  async onePerRun(): Promise<number> {
    const waiting = await this.collectMovedContent(Date.now()).catch((error: unknown) => {
      logWarn("content of moved projects not collected; trying again later", { error });
      return 1;
    });
    const next = this.legacyProjectNames()[0];
    if (next !== undefined) return (await this.moveProject(next)).moved ? 1_000 : MOVE_RETRY_MS;
    return waiting > 0 ? MOVED_CONTENT_GRACE_MS + 1_000 : RETENTION_INTERVAL_MS;
  }

  /**
   * Moves one project created before the split into its own store: waits for writes to it in progress (new ones
   * wait for the move), copies its rows a page at a time (ids, numbers and times kept) and its bucket content,
   * checks the project's store holds as many rows of each table, then in one transaction deletes the rows here and
   * names the project's store in the directory; waiting writes then go there. The content only the moved records
   * named is deleted here by a later alarm run (collectMovedContent), once reads that began before the move are done.
   * Any failure leaves the project where it was (the next attempt starts over).
   */
  async moveProject(name: string): Promise<MoveResult> {
    const { sql, storage, env, organizationId, space } = this.context;
    if (!getProject(sql, name) || hasOwnHome(sql, name))
      return { moved: false, rows: 0, contentObjects: 0, message: `"${name}" is not a project of this store` };
    if (this.moves.has(name))
      return { moved: false, rows: 0, contentObjects: 0, message: `"${name}" is being moved already` };
    let done = () => {};
    this.moves.set(
      name,
      new Promise<void>((resolve) => {
        done = resolve;
      }),
    );
    let rows = 0;
    let contentObjects = 0;
    try {
      const deadline = Date.now() + 60_000;
      while (this.writing.has(name)) {
        if (Date.now() > deadline) throw new Error("writes to the project did not finish within 60 s");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const own = this.context.projectStore(name);
      await own.importBegin();
      for (const { table } of MOVED_TABLES) {
        let after = 0;
        for (;;) {
          const page = projectRowsPage(sql, table, name, after);
          if (page.rows.length > 0) await own.importRows(table, page.rows);
          rows += page.rows.length;
          if (page.next === null) break;
          after = page.next;
        }
      }
      const target = projectSpace(organizationId, name);
      for (const { hash, size } of projectBucketContent(sql, name)) {
        if ((await bucketContentSize(env, target, hash)) !== size) {
          const bytes = await readBucketContent(env, space, hash);
          if (!bytes) throw new Error(`content ${hash} is missing from the bucket`);
          await putBucketContent(env, target, hash, bytes);
        }
        contentObjects++;
      }
      const events = sql.exec<{ value: number }>("SELECT value FROM counters WHERE name = 'events'").toArray()[0];
      const received = await own.importEnd(Number(events?.value ?? 0), projectRowCounts(sql, name));
      if (!received.ok) throw new Error(received.message);
      storage.transactionSync(() => {
        for (const hash of deleteProjectRows(sql, name))
          sql.exec(
            "INSERT OR REPLACE INTO moved_content (hash, moved_at) VALUES (?, ?)",
            hash,
            new Date().toISOString(),
          );
        putSummary(sql, received.summary, new Date().toISOString());
      });
      return { moved: true, rows, contentObjects, message: `"${name}" now lives in its own store` };
    } catch (error) {
      logWarn("a project could not be moved into its own store; it stays where it was and is tried again later", {
        error,
      });
      return { moved: false, rows, contentObjects, message: error instanceof Error ? error.message : String(error) };
    } finally {
      this.moves.delete(name);
      done();
    }
  }

  /**
   * Deletes the content moved projects' records named that no record here names any more, once moved more than
   * MOVED_CONTENT_GRACE_MS ago (a download that began before the move has finished by then); answers how many wait.
   */
  private async collectMovedContent(now: number): Promise<number> {
    const { sql, storage, env, space } = this.context;
    const before = new Date(now - MOVED_CONTENT_GRACE_MS).toISOString();
    const { inBucket, waiting } = storage.transactionSync(() => {
      const due = sql
        .exec<{ hash: string }>("SELECT hash FROM moved_content WHERE moved_at <= ? LIMIT 1000", before)
        .toArray()
        .map((row) => row.hash);
      const collected = collectContent(sql, due);
      for (const hash of due) sql.exec("DELETE FROM moved_content WHERE hash = ?", hash);
      const left = Number(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM moved_content").one().n);
      return { inBucket: collected.inBucket, waiting: left };
    });
    const gone = inBucket.filter((hash) => !getBlob(sql, hash));
    await deleteBucketContent(env, space, gone);
    return waiting;
  }
}
