/**
 * ContractStore: SQLite-backed Durable Objects of two kinds, one class. A project's own store (named
 * `<organization>/projects/<project>`) holds that project's history: contract versions, snapshots, builds, verdicts,
 * traffic runs, accepted breaks and usage counts. The organization's store (named by the organization id) holds the
 * organization's records (CI keys, default projects, subscribers), the projects created before the split, and the
 * directory of the others with their summaries (project-homes.ts). Names always come from the verified token or CI
 * key. Content over SQL_CONTENT_MAX is in the DOCUMENTS bucket under the store's space (bucket.ts). Each store
 * serialises its own writes, so concurrent uploads to one project get distinct version numbers and ids and none is
 * lost, while uploads to different projects never wait for each other. The class is a thin RPC surface: writes are
 * in project-writes.ts, moving projects from before the split in project-mover.ts, retention in retention-run.ts,
 * the storage report and export in storage-report.ts, the SQL in the *-table.ts modules. Use it through client.ts.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../env";
import type { AcceptedBreak, UsageCount } from "../../engine";
import { resolveOrganization } from "../../directory/client";
import { logInfo, logWarn } from "../../lib/log";
import {
  type AcceptedBreakRecord,
  acceptancesInForce,
  getAcceptance,
  listAcceptances,
  type NewAcceptance,
} from "./acceptance-table";
import { getBlob, readChunk, readSmallBlob, type BlobInfo, type ContentPieces } from "./blob-table";
import { deleteBucketContent, emptyBucketSpace, organizationSpace, projectSpace, readBucketContent } from "./bucket";
import { ContractUploadQueue } from "./contract-queue";
import { getDefaultProject, setDefaultProject } from "./default-project-table";
import { getExchangeRun, getLatestExchangeRun, listExchangeRuns, type ExchangeRunInput } from "./exchange-table";
import { documentSource, type DocumentSource } from "./form-table";
import {
  deleteEndedKeys,
  ENDED_KEYS_PER_RUN,
  getKey,
  getKeyWithHash,
  insertKeyWithinLimit,
  type KeyPage,
  keyCounts,
  keyNames,
  listKeys,
  revokeKey,
  type NewKey,
} from "./key-table";
import {
  getActiveContract,
  getBuild,
  getContract,
  countProjects,
  getContractChangeHash,
  getProject,
  getSnapshot,
  getVerdict,
  listBuilds,
  listContracts,
  listProjects,
  listSnapshots,
  listVerdicts,
  projectStatus,
  type BuildInput,
  type ContractInput,
  type SnapshotInput,
} from "./ledger-table";
import { nearNameCondition, projectNameFilter } from "./name-filter";
import {
  countSummaries,
  hasOwnHome,
  forgetOwnHome,
  listSummaries,
  ownHomeNames,
  ownHomesAfter,
  ownHomesUsed,
  type ProjectHome,
  projectStoreName,
  type ProjectSummary,
  putSummary,
  storeOwner,
} from "./project-homes";
import { emptyForMove, finishReceiving, insertMovedRows, type MovedRow } from "./project-move";
import { MOVE_START_DELAY_MS, type MoveResult, ProjectMover } from "./project-mover";
import * as writes from "./project-writes";
import type {
  BuildRecord,
  CiKeyRecord,
  ContractRecord,
  ExchangeRunRecord,
  Page,
  ProjectRecord,
  ProjectStatus,
  SnapshotRecord,
  StorageUsage,
  StorageUsed,
  StoreResult,
  VerdictRecord,
} from "./records";
import { RETENTION_INTERVAL_MS, type RetentionRun, type RetentionSettings } from "./retention-table";
import { addRun, expireStore, recordRetentionRun } from "./retention-run";
import {
  type ContractStoreRpc,
  PURGE_BUCKET_PAGES_PER_CALL,
  PURGE_PROJECTS_PER_CALL,
  type PurgeProgress,
  RETENTION_NOW_PROJECTS,
  type RetentionNow,
  type UploadContext,
  type UsageSince,
  type VerdictBody,
} from "./rpc";
import { PIECES_PER_CALL } from "./schema";
import { applySchema } from "./schema-upgrade";
import {
  bucketContentHashes,
  CONTENT_HASHES_PER_PAGE,
  type ExportContent,
  type ExportRows,
  exportRows,
  exportTableNames,
  type ProjectPage,
  projectUsage,
  storageUsage,
} from "./storage-report";
import {
  addSubscriber,
  listSubscribers,
  removeSession,
  removeSubscriber,
  removeSubscribers,
  type SubscribeResult,
} from "./subscriber-table";
import { MAX_USAGE_KEYS, type UsageKey, usageSince } from "./usage-table";

/** Storage key of the project after which a retention run asked for now goes on (see runRetentionNow). */
const RETENTION_FANOUT_KEY = "retention-now-after";

export class ContractStore extends DurableObject<Env> implements ContractStoreRpc {
  private readonly sql: SqlStorage;
  private readonly contractUploads = new ContractUploadQueue();
  private retentionAlarmKnownSet = false;
  /** Content hashes whose bucket objects retention is deleting right now. */
  private readonly deletingFromBucket = new Set<string>();
  /** The organization's store's mover of projects from before the split (null in a project's own store). */
  private readonly mover: ProjectMover | null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    const name = ctx.id.name;
    this.mover =
      name && storeOwner(name).project === null
        ? new ProjectMover({
            sql: this.sql,
            storage: ctx.storage,
            env,
            organizationId: storeOwner(name).organizationId,
            space: organizationSpace(storeOwner(name).organizationId),
            projectStore: (project) => this.projectStoreRpc(project),
          })
        : null;
    ctx.blockConcurrencyWhile(async () => {
      applySchema(this.sql);
      // A store upgraded from before retention has history (or CI keys) but no alarm: it gets one now, not at its
      // next upload.
      const history = this.sql
        .exec(
          `SELECT 1 FROM snapshots UNION ALL SELECT 1 FROM builds UNION ALL SELECT 1 FROM exchange_runs
           UNION ALL SELECT 1 FROM ci_keys LIMIT 1`,
        )
        .toArray();
      if (history.length > 0) await this.ensureRetentionAlarm();
      // Projects from before the split move into their own stores, one per alarm run, starting a while after start.
      if (this.mover && this.mover.legacyProjectNames().length > 0) {
        const at = await ctx.storage.getAlarm();
        if (at === null || at > Date.now() + MOVE_START_DELAY_MS)
          await ctx.storage.setAlarm(Date.now() + MOVE_START_DELAY_MS);
      }
    });
  }

  /** Whom this object belongs to, from its name (project-homes.ts): objects are only ever reached by idFromName. */
  private get owner(): { organizationId: string; project: string | null } {
    const name = this.ctx.id.name;
    if (!name) throw new Error("ContractStore is reached by idFromName only");
    return storeOwner(name);
  }

  private get organizationId(): string {
    return this.owner.organizationId;
  }

  /** Where this store keeps its bucket content. */
  private get space(): string {
    const { organizationId, project } = this.owner;
    return project === null ? organizationSpace(organizationId) : projectSpace(organizationId, project);
  }

  /** What a write needs of this store (project-writes.ts). */
  private get writeContext(): writes.WriteContext {
    return {
      sql: this.sql,
      storage: this.ctx.storage,
      env: this.env,
      space: this.space,
      deletingFromBucket: this.deletingFromBucket,
    };
  }

  private storeOf(name: string) {
    return this.env.CONTRACT_STORE.get(this.env.CONTRACT_STORE.idFromName(name));
  }

  /** The organization's store, seen from a project's own store. */
  private organizationStore() {
    return this.storeOf(this.organizationId);
  }

  /** A project's own store, called as this class (the organization's store forwards to it). */
  private projectStoreRpc(project: string): ContractStoreRpc {
    // biome-ignore lint/plugin: a stub of this very class; its methods answer what ContractStoreRpc declares
    return this.storeOf(projectStoreName(this.organizationId, project)) as unknown as ContractStoreRpc;
  }

  /**
   * The project's own store when a call for it reached the organization's store although the project has moved
   * there (its caller asked where it lived just before it moved): the call is answered there.
   */
  private movedTo(project: string): ContractStoreRpc | null {
    return this.mover?.movedTo(project) ?? null;
  }

  /** Runs a write where the project lives (project-mover.ts); in a project's own store, here. */
  private writeTo<T>(
    project: string,
    here: () => Promise<T> | T,
    there: (own: ContractStoreRpc) => Promise<T>,
    content: ReadonlyArray<ContentPieces | null> = [],
  ): Promise<T> {
    if (this.mover) return this.mover.writeTo(project, here, there, content);
    return Promise.resolve().then(here);
  }

  /** After a write of history: the retention alarm is set, and the organization's store has the new summary. */
  private async afterWrite(result: { ok: boolean }, history: boolean): Promise<void> {
    if (!result.ok) return;
    if (history) await this.ensureRetentionAlarm();
    await this.tellOrganization();
  }

  async purgeOrganization(organizationId: string): Promise<PurgeProgress> {
    if (organizationId !== this.organizationId) throw new Error("purgeOrganization names another organization");
    await this.ctx.storage.deleteAlarm();
    // Purged already (a purge asked again after one that finished, by a directory alarm retrying the organization's
    // other stores): its tables are gone, and this object has nothing left to remove.
    if (exportTableNames(this.sql).length === 0)
      return { done: await emptyBucketSpace(this.env, this.space, PURGE_BUCKET_PAGES_PER_CALL), projectsLeft: 0 };
    if (this.owner.project === null) {
      // The projects' own stores first, a bounded number per call; each one purged whole is forgotten here, so the
      // next call goes on with the rest.
      for (const name of ownHomeNames(this.sql, null, PURGE_PROJECTS_PER_CALL)) {
        const purged = await this.storeOf(projectStoreName(organizationId, name)).purgeOrganization(organizationId);
        if (!purged.done) return { done: false, projectsLeft: ownHomesAfter(this.sql, null) };
        forgetOwnHome(this.sql, name);
      }
      const projectsLeft = ownHomesAfter(this.sql, null);
      if (projectsLeft > 0) return { done: false, projectsLeft };
    }
    if (!(await emptyBucketSpace(this.env, this.space, PURGE_BUCKET_PAGES_PER_CALL)))
      return { done: false, projectsLeft: 0 };
    await this.ctx.storage.deleteAll();
    return { done: true, projectsLeft: 0 };
  }

  // ---- where projects live (project-homes.ts) ----------------------------------------------------------------

  /**
   * Where a project's records are: in this (the organization's) store when it was created before the split, else
   * in its own store (also for a project that does not exist yet: its first upload creates it there).
   */
  projectHome(name: string): ProjectHome {
    return getProject(this.sql, name) && !hasOwnHome(this.sql, name) ? "organization" : "own";
  }

  /** A project's own store reports its summary after a write (the organization's store keeps it for lists). */
  noteProject(summary: ProjectSummary): void {
    putSummary(this.sql, summary, new Date().toISOString());
  }

  /** A project's own store reports a retention run that deleted something (listed with the organization's). */
  noteRetentionRun(run: RetentionRun, ranAt: string): void {
    recordRetentionRun(this.sql, run, ranAt);
  }

  /** The names of the projects in stores of their own (the organization's store only), for the export. */
  ownProjectNames(): string[] {
    return ownHomeNames(this.sql);
  }

  /** This project's summary, sent to the organization's store (a project's own store only). */
  private summary(): ProjectSummary | null {
    const name = this.owner.project;
    const project = name === null ? null : getProject(this.sql, name);
    if (!name || !project) return null;
    return { project, storage: projectUsage(this.sql, name), used: this.storeUsed() };
  }

  /**
   * Tells the organization's store this project's summary after a write, before the write is answered, so the
   * project list and the quota see the upload as soon as its client does. A failure is logged and sent again with
   * the next write or retention run: the records themselves are already committed here.
   */
  private async tellOrganization(): Promise<void> {
    const summary = this.summary();
    if (!summary) return;
    await this.organizationStore()
      .noteProject(summary)
      .catch((error: unknown) => logWarn("project summary not delivered; sent again with the next write", { error }));
  }

  /** The tables the export archives (exportRows reads each a page at a time). */
  exportTableNames(): string[] {
    return exportTableNames(this.sql);
  }

  /**
   * One page of a table's rows for the export. The content held in the bucket is not in them: the export streams it
   * a page of documents at a time (exportContentAfter, src/contracts/services/archive.ts), so neither a store's rows nor an
   * organization's documents are ever in the Worker's memory all at once.
   */
  exportRows(table: string, afterRowid: number | null, maxBytes: number): ExportRows {
    return exportRows(this.sql, table, afterRowid, maxBytes);
  }

  /**
   * The bucket content after `afterHash` (from the first when null), in hash order, as base64 (null for content the
   * bucket no longer has), until the content read takes `maxBytes` (at least one): the export asks for its documents a
   * page at a time here, so the Worker making it makes one call per page instead of one bucket read per document.
   */
  async exportContentAfter(afterHash: string | null, maxBytes: number): Promise<ExportContent> {
    const hashes = bucketContentHashes(this.sql, afterHash, CONTENT_HASHES_PER_PAGE + 1);
    const items: ExportContent["items"] = [];
    let bytes = 0;
    for (const hash of hashes.slice(0, CONTENT_HASHES_PER_PAGE)) {
      if (items.length > 0 && bytes >= maxBytes) break;
      const content = await readBucketContent(this.env, this.space, hash);
      items.push({ hash, base64: content ? Buffer.from(content).toString("base64") : null });
      bytes += content?.byteLength ?? 0;
    }
    return { items, lastHash: items.at(-1)?.hash ?? null, more: items.length < hashes.length };
  }

  // ---- retention and storage use -------------------------------------------------------------------------

  /** Keeps one retention alarm set once the store holds history (called after each record of it). */
  private async ensureRetentionAlarm(): Promise<void> {
    if (this.retentionAlarmKnownSet) return;
    if ((await this.ctx.storage.getAlarm()) === null)
      await this.ctx.storage.setAlarm(Date.now() + RETENTION_INTERVAL_MS);
    this.retentionAlarmKnownSet = true;
  }

  /**
   * The retention alarm: one run with the organization's policy from the directory; again a second later while
   * expired rows remain, else after RETENTION_INTERVAL_MS. A directory that cannot be reached deletes nothing: the
   * run is tried again an interval later. In the organization's store, the same alarm moves projects from before
   * the split, one per run (project-mover.ts).
   */
  override async alarm(): Promise<void> {
    this.retentionAlarmKnownSet = false;
    const run = await this.runOwnRetention().catch((error: unknown) => {
      logWarn("retention run failed; trying again later", { error });
      return undefined;
    });
    if (run === null) return; // no such organization any more: the directory purges its data
    const fanningOut =
      this.owner.project === null &&
      (await this.continueProjectRetention().catch((error: unknown) => {
        logWarn("project stores' retention not run; trying again later", { error });
        return false;
      }));
    let next = run?.more || fanningOut ? 1_000 : RETENTION_INTERVAL_MS;
    if (this.mover) next = Math.min(next, await this.mover.onePerRun());
    await this.ctx.storage.setAlarm(Date.now() + next);
    this.retentionAlarmKnownSet = true;
  }

  /**
   * One retention run now with the organization's policy from the directory (POST /api/v1/storage/retention-runs,
   * and the alarm); null when the directory has no such organization. When expired rows remain, the alarm takes the
   * next batch a second later. In the organization's store, the projects in stores of their own run theirs too, a few
   * at a time, up to RETENTION_NOW_PROJECTS of them, and the answer adds up those runs; the projects past them run
   * theirs from this store's alarm, RETENTION_NOW_PROJECTS per run a second apart (`projectsPending` counts them).
   */
  async runRetentionNow(): Promise<RetentionNow | null> {
    const run = await this.runOwnRetention();
    if (run === null) return null;
    if (this.owner.project !== null) return { run, projectsPending: 0 };
    const { projectsPending } = await this.runProjectRetention(null, run);
    return { run, projectsPending };
  }

  /**
   * Runs retention in the project stores after `after` (from the first when null), up to RETENTION_NOW_PROJECTS of
   * them, adding their runs to `run`; keeps where it stopped for the alarm when projects remain.
   */
  private async runProjectRetention(after: string | null, run: RetentionRun): Promise<{ projectsPending: number }> {
    const now = ownHomeNames(this.sql, after, RETENTION_NOW_PROJECTS);
    for (let at = 0; at < now.length; at += 8) {
      const runs = await Promise.all(
        now
          .slice(at, at + 8)
          .map((name) => this.storeOf(projectStoreName(this.organizationId, name)).runRetentionNow()),
      );
      for (const each of runs) if (each) addRun(run, each.run);
    }
    const projectsPending = now.length === 0 ? 0 : ownHomesAfter(this.sql, now.at(-1)!);
    if (projectsPending > 0) {
      await this.ctx.storage.put(RETENTION_FANOUT_KEY, now.at(-1));
      await this.ctx.storage.setAlarm(Date.now() + 1_000);
      this.retentionAlarmKnownSet = true;
    } else await this.ctx.storage.delete(RETENTION_FANOUT_KEY);
    return { projectsPending };
  }

  /** The alarm's share of a retention run asked for now that reached more projects than one call takes. */
  private async continueProjectRetention(): Promise<boolean> {
    const after = await this.ctx.storage.get<string>(RETENTION_FANOUT_KEY);
    if (after === undefined) return false;
    const run: RetentionRun = { deleted: { snapshots: 0, builds: 0, exchangeRuns: 0 }, contentBytes: 0, more: false };
    return (await this.runProjectRetention(after, run)).projectsPending > 0;
  }

  /** One retention run of this store alone, with the organization's policy (what its alarm runs). */
  private async runOwnRetention(): Promise<RetentionRun | null> {
    const resolved = await resolveOrganization(this.env, this.organizationId);
    if (!resolved) return null;
    const run = await this.runRetention(resolved.record.settings.retention, Date.now());
    if (run.more) {
      await this.ctx.storage.setAlarm(Date.now() + 1_000);
      this.retentionAlarmKnownSet = true;
    }
    return run;
  }

  /**
   * Deletes up to RETENTION_BATCH expired rows over the store's projects (retention-run.ts) and the content no record
   * names any more, in one transaction; then that content's bucket objects. `now` is the clock expiry is counted
   * from (tests pass their own).
   */
  async runRetention(retention: RetentionSettings | undefined, now: number): Promise<RetentionRun> {
    const result = this.ctx.storage.transactionSync(() => expireStore(this.sql, retention, now));
    // The organization's store also deletes the records of CI keys that ended long ago (key-table.ts).
    const endedKeys = this.owner.project === null ? deleteEndedKeys(this.sql, now) : 0;
    if (endedKeys > 0) logInfo("ended CI keys deleted", { organizationId: this.organizationId, count: endedKeys });
    if (endedKeys >= ENDED_KEYS_PER_RUN) result.run.more = true;
    // After the commit: a failure here leaves objects no record names (never shown), not records without bytes. An
    // upload of the same bytes meanwhile may have recorded them again: those stay. While the delete runs, a record
    // of those bytes is refused (project-writes.ts), so none is made for an object about to go.
    const gone = result.inBucket.filter((hash) => !getBlob(this.sql, hash));
    for (const hash of gone) this.deletingFromBucket.add(hash);
    try {
      await deleteBucketContent(this.env, this.space, gone);
    } finally {
      for (const hash of gone) this.deletingFromBucket.delete(hash);
    }
    if (this.owner.project !== null) {
      await this.tellOrganization();
      if (result.deleted > 0)
        await this.organizationStore()
          .noteRetentionRun(result.run, new Date(now).toISOString())
          .catch((error: unknown) => logWarn("retention run not reported to the organization's store", { error }));
    }
    return result.run;
  }

  /**
   * What the organization stores: its store's database and bucket content plus what each project's own store last
   * reported, per project (in name order), and the last retention runs of all its stores.
   */
  storageUsage(page: ProjectPage = {}): StorageUsage {
    return storageUsage(this.sql, this.storageUsed(), page);
  }

  /**
   * The bytes counted against the organization's quota (two reads and one sum, no scan): in the organization's store,
   * its own plus what its projects' own stores last reported; in a project's own store, that store's alone (the
   * upload path asks the organization's store for the total).
   */
  storageUsed(): StorageUsed {
    const own = this.storeUsed();
    if (this.owner.project !== null) return own;
    const projects = ownHomesUsed(this.sql);
    return {
      databaseBytes: own.databaseBytes + projects.databaseBytes,
      bucketBytes: own.bucketBytes + projects.bucketBytes,
    };
  }

  storeUsed(): StorageUsed {
    return writes.storeUsed(this.writeContext);
  }

  // ---- content --------------------------------------------------------------------------------------------

  blobInfo(hash: string): BlobInfo | null {
    return getBlob(this.sql, hash);
  }

  readDocumentPiece(hash: string, index: number): Uint8Array | null {
    return readChunk(this.sql, hash, index);
  }

  /** Up to PIECES_PER_CALL consecutive pieces (fewer at the end; null when content or a piece is missing). */
  readDocumentPieces(hash: string, firstIndex: number, count: number): Uint8Array[] | null {
    const info = getBlob(this.sql, hash);
    if (!info || count > PIECES_PER_CALL) return null;
    const rows = this.sql
      .exec<{ data: ArrayBuffer }>(
        "SELECT data FROM blob_chunks WHERE hash = ? AND idx >= ? AND idx < ? ORDER BY idx",
        hash,
        firstIndex,
        Math.min(firstIndex + count, info.chunkCount),
      )
      .toArray();
    return rows.length === Math.min(count, info.chunkCount - firstIndex)
      ? rows.map((row) => new Uint8Array(row.data))
      : null;
  }

  /** The cheapest stored source of a document (form-table.ts). */
  documentSource(contentHash: string): DocumentSource | null {
    return documentSource(this.sql, contentHash);
  }

  async readVerdictBody(hash: string): Promise<Uint8Array | null> {
    const info = getBlob(this.sql, hash);
    if (info?.storedIn === "r2") return readBucketContent(this.env, this.space, hash);
    return readSmallBlob(this.sql, hash);
  }

  // ---- projects and contracts -------------------------------------------------------------------------------

  /**
   * The organization's projects in name order (only those in `only` when given, at most `limit`): the ones created
   * before the split from this store's rows, the others from the summaries their stores sent.
   */
  /** How many projects the organization has, and how many have no active contract, without listing them. */
  projectCounts(): { total: number; withoutContract: number } {
    const own = countSummaries(this.sql);
    const legacy = countProjects(this.sql);
    return { total: own.total + legacy.total, withoutContract: own.withoutContract + legacy.withoutContract };
  }

  /**
   * The names of the organization's projects (only those in `only` when given) that could be one keystroke from
   * `name`, for the probable-typo check of an upload that would create a project: read from the names alone.
   */
  projectNamesNear(only: string[] | null, name: string): string[] {
    const names = new Set<string>();
    const { where, bindings } = projectNameFilter("name", only, null);
    const near = nearNameCondition("name", name);
    for (const table of ["project_homes", "projects"]) {
      const rows = this.sql.exec<{ name: string }>(
        `SELECT name FROM ${table} ${where ? `${where} AND` : "WHERE"} ${near.condition}`,
        ...bindings,
        ...near.bindings,
      );
      for (const row of rows) names.add(row.name);
    }
    return [...names].sort();
  }

  listProjects(only: string[] | null, limit: number | null = null, after: string | null = null): ProjectRecord[] {
    const own = listSummaries(this.sql, only, limit, after).map((summary) => summary.project);
    const legacy = listProjects(this.sql, only, limit, after).filter((row) => !own.some((o) => o.name === row.name));
    const merged = [...legacy, ...own].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return limit === null ? merged : merged.slice(0, limit);
  }

  getProject(name: string): ProjectRecord | null | Promise<ProjectRecord | null> {
    return this.movedTo(name)?.getProject(name) ?? getProject(this.sql, name);
  }

  projectStatus(name: string): ProjectStatus | null | Promise<ProjectStatus | null> {
    return this.movedTo(name)?.projectStatus(name) ?? projectStatus(this.sql, name);
  }

  /** One call for what a snapshot upload reads before its verdict (it used to take four). */
  uploadContext(project: string): UploadContext | Promise<UploadContext> {
    return this.movedTo(project)?.uploadContext(project) ?? writes.uploadContext(this.writeContext, project);
  }

  contractChangeHash(project: string, version: number): string | null | Promise<string | null> {
    return (
      this.movedTo(project)?.contractChangeHash(project, version) ?? getContractChangeHash(this.sql, project, version)
    );
  }

  getContract(project: string, version: number): ContractRecord | null | Promise<ContractRecord | null> {
    return this.movedTo(project)?.getContract(project, version) ?? getContract(this.sql, project, version);
  }

  getActiveContract(project: string): ContractRecord | null | Promise<ContractRecord | null> {
    return this.movedTo(project)?.getActiveContract(project) ?? getActiveContract(this.sql, project);
  }

  listContracts(
    project: string,
    limit: number,
    before: number | null,
  ): Page<ContractRecord> | Promise<Page<ContractRecord>> {
    return (
      this.movedTo(project)?.listContracts(project, limit, before) ?? listContracts(this.sql, project, limit, before)
    );
  }

  // ---- writes, where the project lives (project-writes.ts, project-mover.ts) --------------------------------

  /**
   * Waits for this contract upload's turn in the project's queue (contract-queue.ts), then answers what it compares
   * with. The turn ends with recordContract or endContractUpload, or by itself after the lease.
   */
  async beginContractUpload(project: string): Promise<UploadContext & { ticket: string }> {
    return this.writeTo(
      project,
      async () => {
        const ticket = await this.contractUploads.take(project);
        return { ticket, ...writes.uploadContext(this.writeContext, project) };
      },
      (own) => own.beginContractUpload(project),
    );
  }

  endContractUpload(project: string, ticket: string): void {
    this.contractUploads.give(project, ticket);
  }

  /** Records a contract version (project-writes.ts) and ends the upload's turn. */
  async recordContract(
    ticket: string | null,
    input: Omit<ContractInput, "verdict" | "change">,
    verdict: VerdictBody,
    change: { comparedWithVersion: number; verdict: VerdictBody } | null,
    content: ContentPieces,
    forms: { verdict: ContentPieces | null; comparison: ContentPieces | null },
    acceptedIds: readonly string[] = [],
  ): ReturnType<ContractStoreRpc["recordContract"]> {
    return this.writeTo(
      input.project,
      async () => {
        try {
          const result = await writes.recordContract(
            this.writeContext,
            input,
            verdict,
            change,
            content,
            forms,
            acceptedIds,
          );
          await this.afterWrite(result, false);
          return result;
        } finally {
          if (ticket) this.contractUploads.give(input.project, ticket);
        }
      },
      (own) => own.recordContract(ticket, input, verdict, change, content, forms, acceptedIds),
      [content, forms.verdict, forms.comparison],
    );
  }

  async activateContract(project: string, version: number): Promise<StoreResult<{ contract: ContractRecord }>> {
    return this.writeTo(
      project,
      async () => {
        const result = writes.activateContractVersion(this.writeContext, project, version);
        await this.afterWrite(result, false);
        return result;
      },
      (own) => own.activateContract(project, version),
    );
  }

  async acceptBreak(input: NewAcceptance): Promise<StoreResult<{ acceptance: AcceptedBreakRecord; created: boolean }>> {
    return this.writeTo(
      input.project,
      () => writes.acceptBreak(this.writeContext, input),
      (own) => own.acceptBreak(input),
    );
  }

  async revokeAcceptedBreak(project: string, id: string, revokedBy: string): Promise<AcceptedBreakRecord | null> {
    return this.writeTo(
      project,
      () => writes.revokeAcceptedBreak(this.writeContext, project, id, revokedBy),
      (own) => own.revokeAcceptedBreak(project, id, revokedBy),
    );
  }

  async recordSnapshot(
    input: Omit<SnapshotInput, "verdict">,
    verdict: VerdictBody,
    content: ContentPieces,
    acceptedIds: readonly string[] = [],
  ): Promise<StoreResult<{ snapshot: SnapshotRecord; verdict: VerdictRecord; contentReused: boolean }>> {
    return this.writeTo(
      input.project,
      async () => {
        const result = await writes.recordSnapshot(this.writeContext, input, verdict, content, acceptedIds);
        await this.afterWrite(result, true);
        return result;
      },
      (own) => own.recordSnapshot(input, verdict, content, acceptedIds),
      [content],
    );
  }

  async recordBuild(input: BuildInput): Promise<StoreResult<{ build: BuildRecord }>> {
    return this.writeTo(
      input.project,
      async () => {
        const result = writes.recordBuild(this.writeContext, input);
        await this.afterWrite(result, true);
        return result;
      },
      (own) => own.recordBuild(input),
    );
  }

  async recordExchangeRun(
    input: Omit<ExchangeRunInput, "verdict">,
    verdict: VerdictBody,
    usage: readonly UsageCount[] = [],
  ): Promise<StoreResult<{ run: ExchangeRunRecord }>> {
    return this.writeTo(
      input.project,
      async () => {
        const result = await writes.recordExchangeRun(this.writeContext, input, verdict, usage);
        await this.afterWrite(result, true);
        return result;
      },
      (own) => own.recordExchangeRun(input, verdict, usage),
    );
  }

  async recordUsage(
    project: string,
    day: string,
    counts: readonly UsageCount[],
  ): Promise<StoreResult<{ counts: number }>> {
    return this.writeTo(
      project,
      () => writes.recordUsage(this.writeContext, project, day, counts),
      (own) => own.recordUsage(project, day, counts),
    );
  }

  // ---- moving a project from before the split into its own store (project-mover.ts) ------------------------

  /** Moves one project created before the split into its own store (the organization's store only). */
  async moveProject(name: string): Promise<MoveResult> {
    if (!this.mover) throw new Error("only an organization's store moves projects");
    return this.mover.moveProject(name);
  }

  /** Receives a moved project (its own store): empties this store first, so a move that failed half-way starts over. */
  importBegin(): void {
    if (this.owner.project === null) throw new Error("an organization's store does not receive projects");
    this.ctx.storage.transactionSync(() => {
      applySchema(this.sql); // a store emptied by a purge while it was running has no tables left
      emptyForMove(this.sql);
    });
  }

  importRows(table: string, rows: MovedRow[]): void {
    if (this.owner.project === null) throw new Error("an organization's store does not receive projects");
    this.ctx.storage.transactionSync(() => insertMovedRows(this.sql, table, rows));
  }

  /**
   * Ends receiving a moved project: checks it holds `expected` rows of each table, continues the organization's
   * event counter, counts its bucket bytes and sets its retention alarm; answers its summary for the directory.
   */
  async importEnd(
    events: number,
    expected: Record<string, number>,
  ): Promise<{ ok: true; summary: ProjectSummary } | { ok: false; message: string }> {
    const name = this.owner.project;
    if (name === null) throw new Error("an organization's store does not receive projects");
    const short = finishReceiving(this.sql, name, events, expected);
    if (short !== null) return { ok: false, message: short };
    await this.ensureRetentionAlarm();
    const summary = this.summary();
    return summary ? { ok: true, summary } : { ok: false, message: "the project's store received no project row" };
  }

  // ---- accepted breaks (acceptance-table.ts) --------------------------------------------------------------

  /** The project's acceptances in force now, as a verdict takes them. */
  acceptancesInForce(project: string): AcceptedBreak[] | Promise<AcceptedBreak[]> {
    return this.movedTo(project)?.acceptancesInForce(project) ?? acceptancesInForce(this.sql, project, Date.now());
  }

  listAcceptedBreaks(project: string, limit: number): AcceptedBreakRecord[] | Promise<AcceptedBreakRecord[]> {
    return (
      this.movedTo(project)?.listAcceptedBreaks(project, limit) ?? listAcceptances(this.sql, project, Date.now(), limit)
    );
  }

  getAcceptedBreak(project: string, id: string): AcceptedBreakRecord | null | Promise<AcceptedBreakRecord | null> {
    return this.movedTo(project)?.getAcceptedBreak(project, id) ?? getAcceptance(this.sql, project, id, Date.now());
  }

  // ---- snapshots, builds, verdicts, recorded traffic ------------------------------------------------------

  getSnapshot(project: string, id: number): SnapshotRecord | null | Promise<SnapshotRecord | null> {
    return this.movedTo(project)?.getSnapshot(project, id) ?? getSnapshot(this.sql, project, id);
  }

  listSnapshots(
    project: string,
    limit: number,
    before: number | null,
  ): Page<SnapshotRecord> | Promise<Page<SnapshotRecord>> {
    return (
      this.movedTo(project)?.listSnapshots(project, limit, before) ?? listSnapshots(this.sql, project, limit, before)
    );
  }

  getBuild(project: string, id: number): BuildRecord | null | Promise<BuildRecord | null> {
    return this.movedTo(project)?.getBuild(project, id) ?? getBuild(this.sql, project, id);
  }

  listBuilds(project: string, limit: number, before: number | null): Page<BuildRecord> | Promise<Page<BuildRecord>> {
    return this.movedTo(project)?.listBuilds(project, limit, before) ?? listBuilds(this.sql, project, limit, before);
  }

  getVerdict(project: string, id: number): VerdictRecord | null | Promise<VerdictRecord | null> {
    return this.movedTo(project)?.getVerdict(project, id) ?? getVerdict(this.sql, project, id);
  }

  listVerdicts(
    project: string,
    limit: number,
    before: number | null,
  ): Page<VerdictRecord> | Promise<Page<VerdictRecord>> {
    return (
      this.movedTo(project)?.listVerdicts(project, limit, before) ?? listVerdicts(this.sql, project, limit, before)
    );
  }

  usageSince(project: string, keys: UsageKey[], sinceDay: string): UsageSince | Promise<UsageSince> {
    return (
      this.movedTo(project)?.usageSince(project, keys, sinceDay) ??
      usageSince(this.sql, project, keys.slice(0, MAX_USAGE_KEYS), sinceDay)
    );
  }

  getExchangeRun(project: string, id: number): ExchangeRunRecord | null | Promise<ExchangeRunRecord | null> {
    return this.movedTo(project)?.getExchangeRun(project, id) ?? getExchangeRun(this.sql, project, id);
  }

  latestExchangeRun(project: string): ExchangeRunRecord | null | Promise<ExchangeRunRecord | null> {
    return this.movedTo(project)?.latestExchangeRun(project) ?? getLatestExchangeRun(this.sql, project);
  }

  listExchangeRuns(
    project: string,
    limit: number,
    before: number | null,
  ): Page<ExchangeRunRecord> | Promise<Page<ExchangeRunRecord>> {
    return (
      this.movedTo(project)?.listExchangeRuns(project, limit, before) ??
      listExchangeRuns(this.sql, project, limit, before)
    );
  }

  // ---- the organization's own records: CI keys, MCP subscribers, each user's default project ---------------

  /** Stores a key (null past MAX_ACTIVE_KEYS); the retention alarm, which deletes ended keys in time, is set. */
  async createKey(key: NewKey): Promise<CiKeyRecord | null> {
    const created = insertKeyWithinLimit(this.sql, key, new Date().toISOString());
    if (created) await this.ensureRetentionAlarm();
    return created;
  }

  getKey(id: string): CiKeyRecord | null {
    return getKey(this.sql, id);
  }

  keyForValidation(id: string): { key: CiKeyRecord; secretHash: string } | null {
    return getKeyWithHash(this.sql, id);
  }

  listKeys(page: KeyPage = {}): CiKeyRecord[] | null {
    return listKeys(this.sql, page);
  }

  keyCounts(nowIso: string): { active: number; revoked: number; expired: number } {
    return keyCounts(this.sql, nowIso);
  }

  keyNames(ids: string[]): Record<string, string> {
    return keyNames(this.sql, ids);
  }

  revokeKey(id: string, revokedBy: string): CiKeyRecord | null {
    return revokeKey(this.sql, id, revokedBy);
  }

  subscribe(project: string, sessionId: string, userId: string): SubscribeResult {
    return addSubscriber(this.sql, project, sessionId, userId);
  }

  unsubscribe(project: string, sessionId: string): void {
    removeSubscriber(this.sql, project, sessionId);
  }

  unsubscribeAll(project: string, sessionIds: string[]): void {
    this.ctx.storage.transactionSync(() => removeSubscribers(this.sql, project, sessionIds));
  }

  subscribers(project: string): string[] {
    return listSubscribers(this.sql, project);
  }

  /** An MCP session ended: its subscriptions, to every project, go with it. */
  forgetSession(sessionId: string): number {
    return removeSession(this.sql, sessionId);
  }

  defaultProject(userId: string): string | null {
    return getDefaultProject(this.sql, userId);
  }

  setDefaultProject(userId: string, project: string): void {
    setDefaultProject(this.sql, userId, project);
  }
}
