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
import type { ContractStoreRpc, UploadContext, VerdictBody } from "./rpc";

/** Rows one retention run deletes at most; a run that leaves more runs again a second later. */
export const RETENTION_BATCH = 500;

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
    const run = await this.runRetentionNow().catch((error: unknown) => {
      logWarn("retention run failed; trying again later", { error });
      return undefined;
    });
    if (run === null) return; // no such organization any more: the directory purges its data
    await this.ctx.storage.setAlarm(Date.now() + (run?.more ? 1_000 : RETENTION_INTERVAL_MS));
    this.retentionAlarmKnownSet = true;
  }

  /**
   * One retention run now with the organization's policy from the directory (POST /api/v1/storage/retention-runs,
   * and the alarm); null when the directory has no such organization. When expired rows remain, the alarm takes the
   * next batch a second later. In the organization's store, the projects in stores of their own run theirs too (a
   * few at a time) and the answer adds up every store's run.
   */
  async runRetentionNow(): Promise<RetentionRun | null> {
    const resolved = await resolveOrganization(this.env, this.organizationId);
    if (!resolved) return null;
    const run = await this.runRetention(resolved.record.settings.retention, Date.now());
    if (run.more) {
      await this.ctx.storage.setAlarm(Date.now() + 1_000);
      this.retentionAlarmKnownSet = true;
    }
    if (this.owner.project !== null) return run;
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

  getProject(name: string): ProjectRecord | null {
    return getProject(this.sql, name);
  }

  projectStatus(name: string): ProjectStatus | null {
    return projectStatus(this.sql, name);
  }

  /** One call for what a snapshot upload reads before its verdict (it used to take four). */
  uploadContext(project: string): UploadContext {
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
  async beginContractUpload(project: string): Promise<UploadContext & { ticket: string }> {
    const ticket = await this.contractUploads.take(project);
    return { ticket, ...this.uploadContext(project) };
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
  async recordContract(
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

  contractChangeHash(project: string, version: number): string | null {
    return getContractChangeHash(this.sql, project, version);
  }

  async activateContract(project: string, version: number): Promise<StoreResult<{ contract: ContractRecord }>> {
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

  getContract(project: string, version: number): ContractRecord | null {
    return getContract(this.sql, project, version);
  }

  getActiveContract(project: string): ContractRecord | null {
    return getActiveContract(this.sql, project);
  }

  listContracts(project: string, limit: number, before: number | null): Page<ContractRecord> {
    return listContracts(this.sql, project, limit, before);
  }

  // ---- accepted breaks (acceptance-table.ts) --------------------------------------------------------------

  /** The project's acceptances in force now, as a verdict takes them. */
  acceptancesInForce(project: string): AcceptedBreak[] {
    return acceptancesInForce(this.sql, project, Date.now());
  }

  /**
   * Records an acceptance, unless the project is unknown or the same change already has another one in force; the
   * very same acceptance again answers the one recorded (`created: false`).
   */
  acceptBreak(input: NewAcceptance): StoreResult<{ acceptance: AcceptedBreakRecord; created: boolean }> {
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

  listAcceptedBreaks(project: string, limit: number): AcceptedBreakRecord[] {
    return listAcceptances(this.sql, project, Date.now(), limit);
  }

  getAcceptedBreak(project: string, id: string): AcceptedBreakRecord | null {
    return getAcceptance(this.sql, project, id, Date.now());
  }

  revokeAcceptedBreak(project: string, id: string, revokedBy: string): AcceptedBreakRecord | null {
    return revokeAcceptance(this.sql, project, id, revokedBy, Date.now());
  }

  // ---- snapshots, builds, verdicts --------------------------------------------------------------------------

  /** Records a snapshot and its verdict; `content` (the snapshot's bytes) is completed in the same transaction. */
  async recordSnapshot(
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

  getSnapshot(project: string, id: number): SnapshotRecord | null {
    return getSnapshot(this.sql, project, id);
  }

  listSnapshots(project: string, limit: number, before: number | null): Page<SnapshotRecord> {
    return listSnapshots(this.sql, project, limit, before);
  }

  async recordBuild(input: BuildInput): Promise<StoreResult<{ build: BuildRecord }>> {
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

  getBuild(project: string, id: number): BuildRecord | null {
    return getBuild(this.sql, project, id);
  }

  listBuilds(project: string, limit: number, before: number | null): Page<BuildRecord> {
    return listBuilds(this.sql, project, limit, before);
  }

  getVerdict(project: string, id: number): VerdictRecord | null {
    return getVerdict(this.sql, project, id);
  }

  listVerdicts(project: string, limit: number, before: number | null): Page<VerdictRecord> {
    return listVerdicts(this.sql, project, limit, before);
  }

  // ---- recorded traffic -----------------------------------------------------------------------------------

  async recordExchangeRun(
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
  recordUsage(project: string, day: string, counts: readonly UsageCount[]): StoreResult<{ counts: number }> {
    return this.ctx.storage.transactionSync(() => {
      if (!getProject(this.sql, project))
        return { ok: false as const, code: "unknown_project" as const, message: `There is no project "${project}".` };
      addUsage(this.sql, project, day, counts);
      return { ok: true as const, counts: counts.length };
    });
  }

  usageSince(project: string, keys: UsageKey[], sinceDay: string): { anyTraffic: boolean; counts: UsageCount[] } {
    return usageSince(this.sql, project, keys.slice(0, MAX_USAGE_KEYS), sinceDay);
  }

  getExchangeRun(project: string, id: number): ExchangeRunRecord | null {
    return getExchangeRun(this.sql, project, id);
  }

  latestExchangeRun(project: string): ExchangeRunRecord | null {
    return getLatestExchangeRun(this.sql, project);
  }

  listExchangeRuns(project: string, limit: number, before: number | null): Page<ExchangeRunRecord> {
    return listExchangeRuns(this.sql, project, limit, before);
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
