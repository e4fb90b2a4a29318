/**
 * ContractStore: SQLite-backed Durable Objects of two kinds, one class. A project's own store (named
 * `<organization>/projects/<project>`) holds that project's history: contract versions, snapshots, builds, verdicts,
 * traffic runs, accepted breaks and usage counts. The organization's store (named by the organization id) holds the
 * organization's records (CI keys, default projects, subscribers), the projects created before the split, and the
 * directory of the others with their summaries (project-homes.ts). Names always come from the verified token or CI
 * key. Content over SQL_CONTENT_MAX is in the DOCUMENTS bucket under the store's space (bucket.ts). Each store
 * serialises its own writes, so concurrent uploads to one project get distinct version numbers and ids and none is
 * lost, while uploads to different projects never wait for each other. The class is a thin RPC surface; the SQL
 * lives in the *-table.ts modules. Use it through client.ts.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../env";
import {
  bucketBytes,
  completeContent,
  getBlob,
  recordBucketBlob,
  putSmallBlob,
  readChunk,
  readSmallBlob,
  type BlobInfo,
  type ContentPieces,
} from "./blob-table";
import { ContractUploadQueue } from "./contract-queue";
import { documentSource, putForm, type DocumentSource } from "./form-table";
import { COMPARISON_FORM_VERSION, VERDICT_FORM_VERSION } from "./verdict-form";
import {
  getExchangeRun,
  getLatestExchangeRun,
  insertExchangeRun,
  listExchangeRuns,
  type ExchangeRunInput,
} from "./exchange-table";
import { insertKey, getKey, getKeyWithHash, listKeys, revokeKey, type NewKey } from "./key-table";
import {
  activateContract,
  getActiveContract,
  getBuild,
  getContract,
  getContractChangeHash,
  getProject,
  getSnapshot,
  getVerdict,
  insertBuild,
  insertContract,
  insertSnapshot,
  listBuilds,
  listContracts,
  listProjects,
  listSnapshots,
  listVerdicts,
  projectStatus,
  type BuildInput,
  type ContractInput,
  type SnapshotInput,
  type VerdictInput,
} from "./ledger-table";
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
import { PIECES_PER_CALL } from "./schema";
import { applySchema } from "./schema-upgrade";
import type { UsageCount } from "../../engine";
import { addUsage, dayOf, deleteOldUsage, MAX_USAGE_KEYS, type UsageKey, usageSince } from "./usage-table";
import type { AcceptedBreak } from "../../engine";
import {
  type AcceptedBreakRecord,
  acceptancesInForce,
  getAcceptance,
  insertAcceptance,
  listAcceptances,
  markMatched,
  type NewAcceptance,
  revokeAcceptance,
} from "./acceptance-table";
import { addSubscriber, listSubscribers, removeSubscriber } from "./subscriber-table";
import { getDefaultProject, setDefaultProject } from "./default-project-table";
import { logWarn } from "../../lib/log";
import { sha256Digest } from "../../lib/sha256";
import { resolveOrganization } from "../../directory/client";
import {
  collectContent,
  expireProject,
  policyFor,
  RETENTION_INTERVAL_MS,
  type RetentionRun,
  type RetentionSettings,
} from "./retention-table";
import {
  bucketContentSize,
  deleteBucketContent,
  listBucketContent,
  organizationSpace,
  projectSpace,
  putBucketContent,
  readBucketContent,
  SQL_CONTENT_MAX,
} from "./bucket";
import {
  deleteProjectRows,
  insertMovedRows,
  MOVED_TABLES,
  type MovedRow,
  projectBucketContent,
  projectRowCounts,
  projectRowsPage,
} from "./project-move";
import {
  hasOwnHome,
  listSummaries,
  ownHomeNames,
  ownHomesUsed,
  type ProjectHome,
  projectStoreName,
  type ProjectSummary,
  putSummary,
  storeOwner,
} from "./project-homes";
import type { ContractStoreRpc, UploadContext, UsageSince, VerdictBody } from "./rpc";

/** Rows one retention run deletes at most; a run that leaves more runs again a second later. */
export const RETENTION_BATCH = 500;

/** How long content a moved project's records named stays in the organization's store after the move. */
const MOVED_CONTENT_GRACE_MS = 60_000;

/** How long after a store with projects from before the split starts it begins moving them (one per alarm run). */
const MOVE_START_DELAY_MS = 5 * 60_000;

/** How long after a failed move the next attempt is made. */
const MOVE_RETRY_MS = 10 * 60_000;

export class ContractStore extends DurableObject<Env> implements ContractStoreRpc {
  private readonly sql: SqlStorage;
  private readonly contractUploads = new ContractUploadQueue();
  private retentionAlarmKnownSet = false;
  /** Content hashes whose bucket objects retention is deleting right now. */
  private readonly deletingFromBucket = new Set<string>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => {
      applySchema(this.sql);
      // A store upgraded from before retention has history but no alarm: it gets one now, not at its next upload.
      const history = this.sql
        .exec("SELECT 1 FROM snapshots UNION ALL SELECT 1 FROM builds UNION ALL SELECT 1 FROM exchange_runs LIMIT 1")
        .toArray();
      if (history.length > 0) await this.ensureRetentionAlarm();
      // Projects from before the split move into their own stores, one per alarm run, starting a while after start.
      const name = ctx.id.name;
      if (name && storeOwner(name).project === null && this.legacyProjectNames().length > 0) {
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

  private storeOf(name: string) {
    return this.env.CONTRACT_STORE.get(this.env.CONTRACT_STORE.idFromName(name));
  }

  /** The organization's store, seen from a project's own store. */
  private organizationStore() {
    return this.storeOf(this.organizationId);
  }

  /** Each project in a store of its own, with that store (the organization's store only). */
  private ownProjectStores() {
    return ownHomeNames(this.sql).map((name) => ({
      name,
      store: this.storeOf(projectStoreName(this.organizationId, name)),
    }));
  }

  async purgeOrganization(organizationId: string): Promise<void> {
    if (organizationId !== this.organizationId) throw new Error("purgeOrganization names another organization");
    if (this.owner.project === null)
      for (const { store } of this.ownProjectStores()) await store.purgeOrganization(organizationId);
    await this.ctx.storage.deleteAlarm();
    await deleteBucketContent(this.env, this.space, await listBucketContent(this.env, this.space));
    await this.ctx.storage.deleteAll();
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
    this.recordRetentionRun(run, ranAt);
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
    return { project, storage: this.projectUsage(name), used: this.ownUsed() };
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

  /**
   * Every table's rows. The content held in the bucket is not in them: the export streams it object by object
   * (bucketContentHashes, src/directory/admin.ts), so an organization with gigabytes of documents exports in the
   * memory of one document.
   */
  exportTables(): Record<string, Array<Record<string, unknown>>> {
    return this.exportSqlTables();
  }

  /** The content held in the bucket, by hash (for the export). */
  bucketContentHashes(): string[] {
    if (!this.sql.exec("SELECT name FROM sqlite_master WHERE name = 'blobs'").toArray().length) return [];
    return this.sql
      .exec<{ hash: string }>("SELECT hash FROM blobs WHERE stored_in = 'r2' ORDER BY hash")
      .toArray()
      .map((row) => row.hash);
  }

  private exportSqlTables(): Record<string, Array<Record<string, unknown>>> {
    const tables = this.sql
      .exec<{ name: string }>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name`,
      )
      .toArray();
    const archive: Record<string, Array<Record<string, unknown>>> = {};
    for (const { name } of tables) {
      archive[name] = this.sql
        .exec(`SELECT * FROM "${name.replace(/"/g, '""')}"`)
        .toArray()
        .map((row) =>
          Object.fromEntries(
            Object.entries(row).map(([column, value]) => [
              column,
              value instanceof ArrayBuffer ? { base64: Buffer.from(value).toString("base64") } : value,
            ]),
          ),
        );
    }
    return archive;
  }

  /**
   * A verdict body's record, and how to save its bytes inside the record's transaction: a body over SQL_CONTENT_MAX
   * is written to the bucket now, before that transaction, and only recorded in it.
   */
  private async prepareVerdictBody(body: VerdictBody): Promise<{ input: VerdictInput; save: () => void }> {
    const verdictHash = await sha256Digest(body.json);
    const input = {
      approved: body.approved,
      totalViolations: body.totalViolations,
      errorCount: body.errorCount,
      verdictHash,
    };
    if (body.json.byteLength <= SQL_CONTENT_MAX)
      return { input, save: () => putSmallBlob(this.sql, verdictHash, body.json) };
    if (!getBlob(this.sql, verdictHash)) await putBucketContent(this.env, this.space, verdictHash, body.json);
    return { input, save: () => recordBucketBlob(this.sql, verdictHash, body.json.byteLength) };
  }

  /**
   * Whether every content announced as written to the bucket is there with its size (checked before the record's
   * transaction, which then only records it). Content already recorded here needs no check.
   */
  private async inBucket(content: ContentPieces | null): Promise<boolean> {
    if (!content?.inBucket || getBlob(this.sql, content.hash)) return true;
    if (this.deletingFromBucket.has(content.hash)) return false; // retention is deleting these bytes: upload again
    return (await bucketContentSize(this.env, this.space, content.hash)) === content.size;
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
   * run is tried again an interval later.
   */
  override async alarm(): Promise<void> {
    this.retentionAlarmKnownSet = false;
    const run = await this.runOwnRetention().catch((error: unknown) => {
      logWarn("retention run failed; trying again later", { error });
      return undefined;
    });
    if (run === null) return; // no such organization any more: the directory purges its data
    let next = run?.more ? 1_000 : RETENTION_INTERVAL_MS;
    if (this.owner.project === null) next = Math.min(next, await this.moveOnePerRun());
    await this.ctx.storage.setAlarm(Date.now() + next);
    this.retentionAlarmKnownSet = true;
  }

  /**
   * The organization's store's share of an alarm run: deletes content moved projects no longer need, then moves the
   * next project from before the split; answers when the alarm should come back for the rest.
   */
  private async moveOnePerRun(): Promise<number> {
    const waiting = await this.collectMovedContent(Date.now()).catch((error: unknown) => {
      logWarn("content of moved projects not collected; trying again later", { error });
      return 1;
    });
    const next = this.legacyProjectNames()[0];
    if (next !== undefined) return (await this.moveProject(next)).moved ? 1_000 : MOVE_RETRY_MS;
    return waiting > 0 ? MOVED_CONTENT_GRACE_MS + 1_000 : RETENTION_INTERVAL_MS;
  }

  /**
   * One retention run now with the organization's policy from the directory (POST /api/v1/storage/retention-runs,
   * and the alarm); null when the directory has no such organization. When expired rows remain, the alarm takes the
   * next batch a second later. In the organization's store, the projects in stores of their own run theirs too (a
   * few at a time) and the answer adds up every store's run.
   */
  async runRetentionNow(): Promise<RetentionRun | null> {
    const run = await this.runOwnRetention();
    if (run === null || this.owner.project !== null) return run;
    const stores = this.ownProjectStores();
    for (let at = 0; at < stores.length; at += 8) {
      const runs = await Promise.all(stores.slice(at, at + 8).map(({ store }) => store.runRetentionNow()));
      for (const each of runs) {
        if (!each) continue;
        run.deleted.snapshots += each.deleted.snapshots;
        run.deleted.builds += each.deleted.builds;
        run.deleted.exchangeRuns += each.deleted.exchangeRuns;
        run.contentBytes += each.contentBytes;
        run.more ||= each.more;
      }
    }
    return run;
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
   * Deletes up to RETENTION_BATCH expired rows over the organization's projects (retention-table.ts) and the
   * content no record names any more, in one transaction; then that content's bucket objects. `now` is the clock
   * expiry is counted from (tests pass their own).
   */
  async runRetention(retention: RetentionSettings | undefined, now: number): Promise<RetentionRun> {
    const result = this.ctx.storage.transactionSync(() => {
      const run: RetentionRun = { deleted: { snapshots: 0, builds: 0, exchangeRuns: 0 }, contentBytes: 0, more: false };
      const candidates: string[] = [];
      let left = RETENTION_BATCH;
      for (const { name } of this.sql.exec<{ name: string }>("SELECT name FROM projects ORDER BY name").toArray()) {
        const pass = expireProject(this.sql, name, policyFor(retention, name), now, left);
        run.deleted.snapshots += pass.deleted.snapshots;
        run.deleted.builds += pass.deleted.builds;
        run.deleted.exchangeRuns += pass.deleted.exchangeRuns;
        candidates.push(...pass.candidates);
        left -= pass.deleted.snapshots + pass.deleted.builds + pass.deleted.exchangeRuns;
        if (pass.more || left <= 0) {
          run.more = true;
          break;
        }
      }
      deleteOldUsage(this.sql, now);
      const collected = collectContent(this.sql, candidates);
      run.contentBytes = collected.bytes;
      const deleted = run.deleted.snapshots + run.deleted.builds + run.deleted.exchangeRuns;
      if (deleted > 0) this.recordRetentionRun(run, new Date(now).toISOString());
      return { run, inBucket: collected.inBucket, deleted };
    });
    // After the commit: a failure here leaves objects no record names (never shown), not records without bytes. An
    // upload of the same bytes meanwhile may have recorded them again: those stay. While the delete runs, a record
    // of those bytes is refused (inBucket), so none is made for an object about to go.
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

  /** Lists a run that deleted something (the last 50 are kept). */
  private recordRetentionRun(run: RetentionRun, ranAt: string): void {
    this.sql.exec(
      "INSERT INTO retention_runs (ran_at, snapshots, builds, exchange_runs, content_bytes) VALUES (?, ?, ?, ?, ?)",
      ranAt,
      run.deleted.snapshots,
      run.deleted.builds,
      run.deleted.exchangeRuns,
      run.contentBytes,
    );
    this.sql.exec("DELETE FROM retention_runs WHERE id <= (SELECT MAX(id) - 50 FROM retention_runs)");
  }

  /** What one project stores in this store. */
  private projectUsage(name: string): StorageUsage["projects"][number] {
    const count = (table: string) =>
      Number(this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE project = ?`, name).one().n);
    const snapshots = this.sql
      .exec<{ n: number; bytes: number | null; oldest: string | null }>(
        "SELECT COUNT(*) AS n, SUM(size) AS bytes, MIN(uploaded_at) AS oldest FROM snapshots WHERE project = ?",
        name,
      )
      .one();
    const contracts = this.sql
      .exec<{ n: number; bytes: number | null }>(
        "SELECT COUNT(*) AS n, SUM(size) AS bytes FROM contracts WHERE project = ?",
        name,
      )
      .one();
    return {
      name,
      snapshots: Number(snapshots.n),
      documentBytes: Number(snapshots.bytes ?? 0) + Number(contracts.bytes ?? 0),
      contracts: Number(contracts.n),
      builds: count("builds"),
      exchangeRuns: count("exchange_runs"),
      oldestSnapshotAt: snapshots.oldest,
    };
  }

  /**
   * What the organization stores: its store's database and bucket content plus what each project's own store last
   * reported, per project (in name order), and the last retention runs of all its stores.
   */
  storageUsage(): StorageUsage {
    const legacy = this.sql
      .exec<{ name: string }>("SELECT name FROM projects ORDER BY name")
      .toArray()
      .map(({ name }) => this.projectUsage(name));
    const own = listSummaries(this.sql, null, null).map((summary) => summary.storage);
    const projects = [...legacy.filter((entry) => !own.some((o) => o.name === entry.name)), ...own].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    const retentionRuns = this.sql
      .exec<{ ran_at: string; snapshots: number; builds: number; exchange_runs: number; content_bytes: number }>(
        "SELECT * FROM retention_runs ORDER BY ran_at DESC, id DESC LIMIT 10",
      )
      .toArray()
      .map((row) => ({
        ranAt: row.ran_at,
        snapshots: Number(row.snapshots),
        builds: Number(row.builds),
        exchangeRuns: Number(row.exchange_runs),
        contentBytes: Number(row.content_bytes),
      }));
    return {
      ...this.storageUsed(),
      projects,
      retentionRuns,
    };
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
  listProjects(only: string[] | null, limit: number | null = null): ProjectRecord[] {
    const own = listSummaries(this.sql, only, limit).map((summary) => summary.project);
    const legacy = listProjects(this.sql, only, limit).filter((row) => !own.some((o) => o.name === row.name));
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
    return this.movedTo(project)?.uploadContext(project) ?? this.uploadContextHere(project);
  }

  private uploadContextHere(project: string): UploadContext {
    const active = getActiveContract(this.sql, project);
    return {
      projectExists: active !== null || getProject(this.sql, project) !== null,
      active,
      activeSource: active ? documentSource(this.sql, active.contentHash, "compare") : null,
      storage: this.ownUsed(),
      acceptances: acceptancesInForce(this.sql, project, Date.now()),
    };
  }

  /**
   * The bytes counted against the organization's quota (two reads and one sum, no scan): in the organization's store,
   * its own plus what its projects' own stores last reported; in a project's own store, that store's alone (the
   * upload path asks the organization's store for the total).
   */
  storageUsed(): StorageUsed {
    const own = this.ownUsed();
    if (this.owner.project !== null) return own;
    const projects = ownHomesUsed(this.sql);
    return {
      databaseBytes: own.databaseBytes + projects.databaseBytes,
      bucketBytes: own.bucketBytes + projects.bucketBytes,
    };
  }

  storeUsed(): StorageUsed {
    return this.ownUsed();
  }

  private ownUsed(): StorageUsed {
    return { databaseBytes: this.ctx.storage.sql.databaseSize, bucketBytes: bucketBytes(this.sql) };
  }

  /**
   * Waits for this contract upload's turn in the project's queue (contract-queue.ts), then answers what it compares
   * with. The turn ends with recordContract or endContractUpload, or by itself after the lease.
   */
  private async beginContractUploadHere(project: string): Promise<UploadContext & { ticket: string }> {
    const ticket = await this.contractUploads.take(project);
    return { ticket, ...this.uploadContextHere(project) };
  }

  endContractUpload(project: string, ticket: string): void {
    this.contractUploads.give(project, ticket);
  }

  /**
   * Records a contract version and ends the upload's turn. `change` is the comparison with
   * `change.comparedWithVersion`, which must still be the active version when the write happens (it is, unless the
   * turn's lease ran out or a version was activated by hand meanwhile): otherwise the answer is `stale_comparison`
   * and the caller takes a new turn, so no version is ever recorded as compared with a version it was not compared
   * with. `content` is completed here, in the same transaction; its forms (verdict-form.ts) when they are complete too.
   */
  private async recordContractHere(
    ticket: string | null,
    input: Omit<ContractInput, "verdict" | "change">,
    verdict: VerdictBody,
    change: { comparedWithVersion: number; verdict: VerdictBody } | null,
    content: ContentPieces,
    forms: { verdict: ContentPieces | null; comparison: ContentPieces | null },
    /** The accepted breaks the change's verdict used (marked matched with the record). */
    acceptedIds: readonly string[] = [],
  ): Promise<
    | StoreResult<{ contract: ContractRecord; verdict: VerdictRecord; projectCreated: boolean; contentReused: boolean }>
    | { ok: false; code: "stale_comparison"; message: string }
  > {
    try {
      const verdictBody = await this.prepareVerdictBody(verdict);
      const changeBody = change ? await this.prepareVerdictBody(change.verdict) : undefined;
      const changeInput =
        change && changeBody
          ? { comparedWithVersion: change.comparedWithVersion, verdict: changeBody.input }
          : undefined;
      const verdictInput = verdictBody.input;
      const [contentThere, verdictFormThere, comparisonFormThere] = await Promise.all(
        [content, forms.verdict, forms.comparison].map((each) => this.inBucket(each)),
      );
      const verdictForm = verdictFormThere ? forms.verdict : null;
      const comparisonForm = comparisonFormThere ? forms.comparison : null;
      const result = this.ctx.storage.transactionSync(() => {
        const contentReused = getBlob(this.sql, content.hash) !== null;
        if (content.hash !== input.document.contentHash || !contentThere || !completeContent(this.sql, content))
          return {
            ok: false as const,
            code: "missing_content" as const,
            message: "The document content was not stored completely; upload it again.",
          };
        const active = getActiveContract(this.sql, input.project);
        if ((active?.version ?? null) !== (change?.comparedWithVersion ?? null)) {
          return {
            ok: false as const,
            code: "stale_comparison" as const,
            message: "The active contract changed while this upload was being compared with it.",
          };
        }
        if (verdictForm && completeContent(this.sql, verdictForm))
          putForm(this.sql, content.hash, verdictForm.hash, VERDICT_FORM_VERSION);
        if (comparisonForm && completeContent(this.sql, comparisonForm))
          putForm(this.sql, content.hash, comparisonForm.hash, COMPARISON_FORM_VERSION);
        verdictBody.save();
        changeBody?.save();
        markMatched(this.sql, acceptedIds, null, Date.now());
        return {
          ok: true as const,
          ...insertContract(this.sql, {
            ...input,
            verdict: verdictInput,
            ...(changeInput ? { change: changeInput } : {}),
          }),
          contentReused,
        };
      });
      if (result.ok) await this.tellOrganization();
      return result;
    } finally {
      if (ticket) this.contractUploads.give(input.project, ticket);
    }
  }

  contractChangeHash(project: string, version: number): string | null | Promise<string | null> {
    return (
      this.movedTo(project)?.contractChangeHash(project, version) ?? getContractChangeHash(this.sql, project, version)
    );
  }

  private async activateContractHere(
    project: string,
    version: number,
  ): Promise<StoreResult<{ contract: ContractRecord }>> {
    const result = this.ctx.storage.transactionSync(() => {
      if (!getProject(this.sql, project))
        return { ok: false as const, code: "unknown_project" as const, message: `There is no project "${project}".` };
      const contract = activateContract(this.sql, project, version);
      if (!contract)
        return {
          ok: false as const,
          code: "unknown_contract" as const,
          message: `Project "${project}" has no contract version ${version}.`,
        };
      return { ok: true as const, contract };
    });
    if (result.ok) await this.tellOrganization();
    return result;
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

  // ---- writes, where the project lives ----------------------------------------------------------------------
  // In the organization's store, a write to a project waits for a move of that project in progress, then goes to
  // the project's own store once it lives there (project-move.ts); otherwise it is written here, counted as in
  // progress so that a move starts only after it.

  private async writeTo<T>(project: string, here: () => Promise<T> | T, there: (own: ContractStoreRpc) => Promise<T>) {
    if (this.owner.project === null) {
      await this.moves.get(project);
      if (hasOwnHome(this.sql, project)) return there(this.projectStoreRpc(project));
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
    const target = projectSpace(this.organizationId, project);
    for (const content of contents) {
      if (!content?.inBucket || (await bucketContentSize(this.env, target, content.hash)) === content.size) continue;
      const bytes = await readBucketContent(this.env, this.space, content.hash);
      if (bytes) await putBucketContent(this.env, target, content.hash, bytes);
    }
  }

  async beginContractUpload(project: string): Promise<UploadContext & { ticket: string }> {
    return this.writeTo(
      project,
      () => this.beginContractUploadHere(project),
      (own) => own.beginContractUpload(project),
    );
  }

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
      () => this.recordContractHere(ticket, input, verdict, change, content, forms, acceptedIds),
      async (own) => {
        await this.copyToProjectSpace(input.project, [content, forms.verdict, forms.comparison]);
        return own.recordContract(ticket, input, verdict, change, content, forms, acceptedIds);
      },
    );
  }

  async activateContract(project: string, version: number): Promise<StoreResult<{ contract: ContractRecord }>> {
    return this.writeTo(
      project,
      () => this.activateContractHere(project, version),
      (own) => own.activateContract(project, version),
    );
  }

  async acceptBreak(input: NewAcceptance): Promise<StoreResult<{ acceptance: AcceptedBreakRecord; created: boolean }>> {
    return this.writeTo(
      input.project,
      () => this.acceptBreakHere(input),
      (own) => own.acceptBreak(input),
    );
  }

  async revokeAcceptedBreak(project: string, id: string, revokedBy: string): Promise<AcceptedBreakRecord | null> {
    return this.writeTo(
      project,
      () => this.revokeAcceptedBreakHere(project, id, revokedBy),
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
      () => this.recordSnapshotHere(input, verdict, content, acceptedIds),
      async (own) => {
        await this.copyToProjectSpace(input.project, [content]);
        return own.recordSnapshot(input, verdict, content, acceptedIds);
      },
    );
  }

  async recordBuild(input: BuildInput): Promise<StoreResult<{ build: BuildRecord }>> {
    return this.writeTo(
      input.project,
      () => this.recordBuildHere(input),
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
      () => this.recordExchangeRunHere(input, verdict, usage),
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
      () => this.recordUsageHere(project, day, counts),
      (own) => own.recordUsage(project, day, counts),
    );
  }

  // ---- moving a project from before the split into its own store (project-move.ts) ------------------------

  /** Moves in progress (organization's store): writes to the project wait for them. */
  private readonly moves = new Map<string, Promise<void>>();
  /** Writes in progress per project (organization's store): a move starts once they are done. */
  private readonly writing = new Map<string, number>();

  /**
   * The project's own store when a call for it reached the organization's store although the project lives there (a
   * caller asked where it lives just before it moved): reads are answered there, like writes (writeTo).
   */
  private movedTo(project: string): ContractStoreRpc | null {
    return this.owner.project === null && hasOwnHome(this.sql, project) ? this.projectStoreRpc(project) : null;
  }

  /** A project's own store, called as this class (the organization's store forwards to it). */
  private projectStoreRpc(project: string): ContractStoreRpc {
    // biome-ignore lint/plugin: a stub of this very class; its methods answer what ContractStoreRpc declares
    return this.storeOf(projectStoreName(this.organizationId, project)) as unknown as ContractStoreRpc;
  }

  /** Projects still in the organization's store (created before the split). */
  private legacyProjectNames(): string[] {
    return this.sql
      .exec<{ name: string }>(
        "SELECT name FROM projects WHERE name NOT IN (SELECT name FROM project_homes) ORDER BY name",
      )
      .toArray()
      .map((row) => row.name);
  }

  /**
   * Moves one project created before the split into its own store (the organization's store only): waits for writes
   * to it in progress (new ones wait for the move), copies its rows a page at a time (ids, numbers and times kept)
   * and its bucket content, checks the project's store holds as many rows of each table, then in one transaction
   * deletes the rows here and names the project's store in the directory; waiting writes then go there. The content
   * only the moved records named is deleted here by a later alarm run (collectMovedContent), once reads that began
   * before the move are done. Any failure leaves the project where it was (the next attempt starts over).
   */
  async moveProject(name: string): Promise<{ moved: boolean; rows: number; contentObjects: number; message: string }> {
    if (this.owner.project !== null) throw new Error("only an organization's store moves projects");
    if (!getProject(this.sql, name) || hasOwnHome(this.sql, name))
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
      const own = this.projectStoreRpc(name);
      await own.importBegin();
      for (const { table } of MOVED_TABLES) {
        let after = 0;
        for (;;) {
          const page = projectRowsPage(this.sql, table, name, after);
          if (page.rows.length > 0) await own.importRows(table, page.rows);
          rows += page.rows.length;
          if (page.next === null) break;
          after = page.next;
        }
      }
      const target = projectSpace(this.organizationId, name);
      for (const { hash, size } of projectBucketContent(this.sql, name)) {
        if ((await bucketContentSize(this.env, target, hash)) !== size) {
          const bytes = await readBucketContent(this.env, this.space, hash);
          if (!bytes) throw new Error(`content ${hash} is missing from the bucket`);
          await putBucketContent(this.env, target, hash, bytes);
        }
        contentObjects++;
      }
      const events = this.sql.exec<{ value: number }>("SELECT value FROM counters WHERE name = 'events'").toArray()[0];
      const received = await own.importEnd(Number(events?.value ?? 0), projectRowCounts(this.sql, name));
      if (!received.ok) throw new Error(received.message);
      this.ctx.storage.transactionSync(() => {
        for (const hash of deleteProjectRows(this.sql, name))
          this.sql.exec(
            "INSERT OR REPLACE INTO moved_content (hash, moved_at) VALUES (?, ?)",
            hash,
            new Date().toISOString(),
          );
        putSummary(this.sql, received.summary, new Date().toISOString());
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
    const before = new Date(now - MOVED_CONTENT_GRACE_MS).toISOString();
    const { inBucket, waiting } = this.ctx.storage.transactionSync(() => {
      const due = this.sql
        .exec<{ hash: string }>("SELECT hash FROM moved_content WHERE moved_at <= ? LIMIT 1000", before)
        .toArray()
        .map((row) => row.hash);
      const collected = collectContent(this.sql, due);
      for (const hash of due) this.sql.exec("DELETE FROM moved_content WHERE hash = ?", hash);
      const left = Number(this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM moved_content").one().n);
      return { inBucket: collected.inBucket, waiting: left };
    });
    const gone = inBucket.filter((hash) => !getBlob(this.sql, hash));
    await deleteBucketContent(this.env, this.space, gone);
    return waiting;
  }

  /** Receives a moved project (its own store): empties this store first, so a move that failed half-way starts over. */
  importBegin(): void {
    if (this.owner.project === null) throw new Error("an organization's store does not receive projects");
    this.ctx.storage.transactionSync(() => {
      applySchema(this.sql); // a store emptied by a purge while it was running has no tables left
      for (const { table } of MOVED_TABLES) this.sql.exec(`DELETE FROM ${table}`);
      this.sql.exec("DELETE FROM counters");
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
    const counts = projectRowCounts(this.sql, name);
    const short = Object.keys(expected).filter((table) => counts[table] !== expected[table]);
    if (short.length > 0)
      return { ok: false, message: `the project's store did not receive every row of ${short.join(", ")}` };
    this.sql.exec("INSERT OR REPLACE INTO counters (name, value) VALUES ('events', ?)", events);
    this.sql.exec(
      "INSERT OR REPLACE INTO counters (name, value) SELECT 'bucket_bytes', COALESCE(SUM(size), 0) FROM blobs WHERE stored_in = 'r2'",
    );
    await this.ensureRetentionAlarm();
    const summary = this.summary();
    return summary ? { ok: true, summary } : { ok: false, message: "the project's store received no project row" };
  }

  // ---- accepted breaks (acceptance-table.ts) --------------------------------------------------------------

  /** The project's acceptances in force now, as a verdict takes them. */
  acceptancesInForce(project: string): AcceptedBreak[] | Promise<AcceptedBreak[]> {
    return this.movedTo(project)?.acceptancesInForce(project) ?? acceptancesInForce(this.sql, project, Date.now());
  }

  /**
   * Records an acceptance, unless the project is unknown or the same change already has another one in force; the
   * very same acceptance again answers the one recorded (`created: false`).
   */
  private acceptBreakHere(input: NewAcceptance): StoreResult<{ acceptance: AcceptedBreakRecord; created: boolean }> {
    return this.ctx.storage.transactionSync(() => {
      if (!getProject(this.sql, input.project))
        return {
          ok: false as const,
          code: "unknown_project" as const,
          message: `There is no project "${input.project}".`,
        };
      const now = Date.now();
      const existing = acceptancesInForce(this.sql, input.project, now).find(
        (acceptance) => acceptance.fingerprint === input.fingerprint,
      );
      // The same acceptance again (a retried call) answers the one in force; anything else about it is a conflict.
      if (
        existing &&
        existing.reason === input.reason &&
        existing.owner === input.owner &&
        existing.expiresAt === input.expiresAt
      )
        return {
          ok: true as const,
          acceptance: getAcceptance(this.sql, input.project, existing.id, now)!,
          created: false,
        };
      if (existing)
        return {
          ok: false as const,
          code: "already_accepted" as const,
          message: `This change (${input.fingerprint}) is already accepted by ${existing.id} until ${existing.expiresAt}: revoke it first (DELETE /api/v1/projects/${input.project}/accepted-breaks/${existing.id}) to accept it again with another reason or expiry.`,
        };
      return { ok: true as const, acceptance: insertAcceptance(this.sql, input, now), created: true };
    });
  }

  listAcceptedBreaks(project: string, limit: number): AcceptedBreakRecord[] | Promise<AcceptedBreakRecord[]> {
    return (
      this.movedTo(project)?.listAcceptedBreaks(project, limit) ?? listAcceptances(this.sql, project, Date.now(), limit)
    );
  }

  getAcceptedBreak(project: string, id: string): AcceptedBreakRecord | null | Promise<AcceptedBreakRecord | null> {
    return this.movedTo(project)?.getAcceptedBreak(project, id) ?? getAcceptance(this.sql, project, id, Date.now());
  }

  private revokeAcceptedBreakHere(project: string, id: string, revokedBy: string): AcceptedBreakRecord | null {
    return revokeAcceptance(this.sql, project, id, revokedBy, Date.now());
  }

  // ---- snapshots, builds, verdicts --------------------------------------------------------------------------

  /** Records a snapshot and its verdict; `content` (the snapshot's bytes) is completed in the same transaction. */
  private async recordSnapshotHere(
    input: Omit<SnapshotInput, "verdict">,
    verdict: VerdictBody,
    content: ContentPieces,
    /** The accepted breaks the verdict used (marked matched by this snapshot). */
    acceptedIds: readonly string[] = [],
  ): Promise<StoreResult<{ snapshot: SnapshotRecord; verdict: VerdictRecord; contentReused: boolean }>> {
    const verdictBody = await this.prepareVerdictBody(verdict);
    const verdictInput = verdictBody.input;
    const contentThere = await this.inBucket(content);
    const result = this.ctx.storage.transactionSync(() => {
      if (!getProject(this.sql, input.project))
        return {
          ok: false as const,
          code: "unknown_project" as const,
          message: `There is no project "${input.project}".`,
        };
      const contentReused = getBlob(this.sql, content.hash) !== null;
      if (content.hash !== input.document.contentHash || !contentThere || !completeContent(this.sql, content))
        return {
          ok: false as const,
          code: "missing_content" as const,
          message: "The document content was not stored completely; upload it again.",
        };
      verdictBody.save();
      const stored = insertSnapshot(this.sql, { ...input, verdict: verdictInput });
      if (!stored)
        return {
          ok: false as const,
          code: "unknown_contract" as const,
          message: `Project "${input.project}" has no contract version ${input.contractVersion}.`,
        };
      markMatched(this.sql, acceptedIds, stored.snapshot.id, Date.now());
      return { ok: true as const, ...stored, contentReused };
    });
    if (result.ok) {
      await this.ensureRetentionAlarm();
      await this.tellOrganization();
    }
    return result;
  }

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

  private async recordBuildHere(input: BuildInput): Promise<StoreResult<{ build: BuildRecord }>> {
    const result = this.ctx.storage.transactionSync(() => {
      if (!getProject(this.sql, input.project))
        return {
          ok: false as const,
          code: "unknown_project" as const,
          message: `There is no project "${input.project}".`,
        };
      return { ok: true as const, build: insertBuild(this.sql, input) };
    });
    if (result.ok) {
      await this.ensureRetentionAlarm();
      await this.tellOrganization();
    }
    return result;
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

  // ---- recorded traffic -----------------------------------------------------------------------------------

  private async recordExchangeRunHere(
    input: Omit<ExchangeRunInput, "verdict">,
    verdict: VerdictBody,
    usage: readonly UsageCount[] = [],
  ): Promise<StoreResult<{ run: ExchangeRunRecord }>> {
    const verdictBody = await this.prepareVerdictBody(verdict);
    const result = this.ctx.storage.transactionSync(() => {
      if (!getProject(this.sql, input.project))
        return {
          ok: false as const,
          code: "unknown_project" as const,
          message: `There is no project "${input.project}".`,
        };
      verdictBody.save();
      const run = insertExchangeRun(this.sql, { ...input, verdict: verdictBody.input });
      if (!run)
        return {
          ok: false as const,
          code: "unknown_contract" as const,
          message: `Project "${input.project}" has no contract version ${input.contractVersion}.`,
        };
      addUsage(this.sql, input.project, dayOf(Date.now()), usage);
      return { ok: true as const, run };
    });
    if (result.ok) {
      await this.ensureRetentionAlarm();
      await this.tellOrganization();
    }
    return result;
  }

  /** Counts a gateway or middleware posted for `day` (the ingest route checked them). */
  private recordUsageHere(
    project: string,
    day: string,
    counts: readonly UsageCount[],
  ): StoreResult<{ counts: number }> {
    return this.ctx.storage.transactionSync(() => {
      if (!getProject(this.sql, project))
        return { ok: false as const, code: "unknown_project" as const, message: `There is no project "${project}".` };
      addUsage(this.sql, project, day, counts);
      return { ok: true as const, counts: counts.length };
    });
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

  // ---- CI keys ----------------------------------------------------------------------------------------------

  createKey(key: NewKey): CiKeyRecord {
    return insertKey(this.sql, key);
  }

  getKey(id: string): CiKeyRecord | null {
    return getKey(this.sql, id);
  }

  keyForValidation(id: string): { key: CiKeyRecord; secretHash: string } | null {
    return getKeyWithHash(this.sql, id);
  }

  listKeys(): CiKeyRecord[] {
    return listKeys(this.sql);
  }

  revokeKey(id: string, revokedBy: string): CiKeyRecord | null {
    return revokeKey(this.sql, id, revokedBy);
  }

  // ---- MCP subscribers --------------------------------------------------------------------------------------

  subscribe(project: string, sessionId: string): void {
    addSubscriber(this.sql, project, sessionId);
  }

  unsubscribe(project: string, sessionId: string): void {
    removeSubscriber(this.sql, project, sessionId);
  }

  subscribers(project: string): string[] {
    return listSubscribers(this.sql, project);
  }

  // ---- Per-user default project ------------------------------------------------------------------------------

  defaultProject(userId: string): string | null {
    return getDefaultProject(this.sql, userId);
  }

  setDefaultProject(userId: string, project: string): void {
    setDefaultProject(this.sql, userId, project);
  }
}
