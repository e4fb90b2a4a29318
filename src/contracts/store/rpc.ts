/**
 * What an organization's ContractStore (the Durable Object in durable-object.ts) offers over RPC, and the verdict
 * body it takes. Env types the CONTRACT_STORE binding by this interface, so no caller imports the class; the class
 * implements it, so the two cannot drift. Callers go through client.ts.
 */
import type { AcceptedBreak } from "../../engine";
import type { UsageCount } from "../../engine";
import type { AcceptedBreakRecord, NewAcceptance } from "./acceptance-table";
import type { UsageKey } from "./usage-table";
import type { BlobInfo, ContentPieces } from "./blob-table";
import type { DocumentSource } from "./form-table";
import type { ExchangeRunInput } from "./exchange-table";
import type { KeyPage, NewKey } from "./key-table";
import type { SubscribeResult } from "./subscriber-table";
import type { ExportContent, ExportRows, ProjectPage } from "./storage-report";
import type { ProjectHome, ProjectSummary } from "./project-homes";
import type { MovedRow } from "./project-move";
import type { RetentionRun, RetentionSettings } from "./retention-table";
import type { BuildInput, ContractInput, SnapshotInput } from "./ledger-table";
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

/** A verdict as the upload path hands it over: summary numbers plus the serialised body. */
export interface VerdictBody {
  approved: boolean;
  totalViolations: number;
  errorCount: number;
  /** UTF-8 JSON of the Verdict. */
  json: Uint8Array;
}

/** What an upload needs before it can compare: the project, its active version and where to read that version. */
export interface UploadContext {
  projectExists: boolean;
  active: ContractRecord | null;
  /** The active version's verdict form, or its uploaded bytes when it has none (inline when one piece). */
  activeSource: DocumentSource | null;
  /** What this store holds now (the organization's total comes from its store: services/storage.ts quotaUse). */
  storage: StorageUsed;
  /** The project's accepted breaks in force now (acceptance-table.ts), which the verdict applies. */
  acceptances: AcceptedBreak[];
}

/** What the usage index holds of some operations since a day (usage-table.ts). */
export type UsageSince = { anyTraffic: boolean; counts: UsageCount[] };

/**
 * The store's RPC methods (a stub answers each with a promise). A project's reads answer a promise when the
 * organization's store hands the call to the project's own store (a project that moved: durable-object.ts movedTo).
 */
/** Where an organization's purge is: done, or how many projects' stores are left to purge. */
export interface PurgeProgress {
  done: boolean;
  projectsLeft: number;
}

/** A retention run asked for now: what it deleted, and how many projects' stores run theirs in the next seconds. */
export interface RetentionNow {
  run: RetentionRun;
  projectsPending: number;
}

/** Project stores whose retention a run asked for now runs in the call; the alarm runs as many per second after. */
export const RETENTION_NOW_PROJECTS = 100;

/** Project stores purged per call of the organization's store's purge. */
export const PURGE_PROJECTS_PER_CALL = 20;
/** Pages of up to 1,000 bucket objects (a list and a delete each) a store deletes per call of its purge. */
export const PURGE_BUCKET_PAGES_PER_CALL = 100;

export interface ContractStoreRpc extends Rpc.DurableObjectBranded {
  /**
   * Removes everything this object stores, and in the organization's store every project store it lists: the
   * organization was deleted (src/directory/store.ts, after the grace period and an export). Only the directory calls
   * it, on the object named by that organization's id. A call does a bounded part (PURGE_PROJECTS_PER_CALL project
   * stores, PURGE_BUCKET_PAGES_PER_CALL pages of bucket objects per store) and says whether it is done; the
   * directory calls again, from another invocation, until it is.
   */
  purgeOrganization(organizationId: string): Promise<PurgeProgress>;
  /**
   * Where a project's records are (project-homes.ts): `organization` for a project created before the split, which
   * stays in the organization's store; `own` for every other, existing or not yet.
   */
  projectHome(name: string): ProjectHome;
  /** A project's own store reports its summary after each write (the organization's store lists it). */
  noteProject(summary: ProjectSummary): void;
  /** A project's own store reports a retention run that deleted something. */
  noteRetentionRun(run: RetentionRun, ranAt: string): void;
  /** The projects living in stores of their own (the organization's store), for the export. */
  ownProjectNames(): string[];
  /**
   * Moves a project created before the split into its own store (the organization's store; its alarm moves them
   * one per run by itself): what moved, or why it stayed where it was.
   */
  moveProject(name: string): Promise<{ moved: boolean; rows: number; contentObjects: number; message: string }>;
  /** A project's own store receiving a moved project (project-move.ts): start over, a page of rows, the end. */
  importBegin(): void;
  importRows(table: string, rows: MovedRow[]): void;
  importEnd(
    events: number,
    expected: Record<string, number>,
  ): Promise<{ ok: true; summary: ProjectSummary } | { ok: false; message: string }>;
  /** The tables the organization's export archive holds, by name. */
  exportTableNames(): string[];
  /** A page of one table's rows after `afterRowid` (null: the first), about `maxBytes` (binary values as `{ base64 }`). */
  exportRows(table: string, afterRowid: number | null, maxBytes: number): ExportRows;
  /**
   * A page of the content held in the DOCUMENTS bucket after `afterHash` (null: the first), in hash order, as
   * base64, until about `maxBytes` (at least one): the export takes it after the tables.
   */
  exportContentAfter(afterHash: string | null, maxBytes: number): Promise<ExportContent>;
  /**
   * One retention run (retention-table.ts) with these settings and this clock: what the alarm runs with the
   * organization's settings from the directory.
   */
  runRetention(retention: RetentionSettings | undefined, now: number): Promise<RetentionRun>;
  /**
   * One run now with the organization's policy from the directory (with, in the organization's store, up to
   * RETENTION_NOW_PROJECTS project stores' runs; the others follow by alarm); null when it has no such organization.
   */
  runRetentionNow(): Promise<RetentionNow | null>;
  /** What the organization stores (database, bucket, per project) and the last retention runs. */
  /** The organization's storage, per project for the projects `page` names (every project when omitted). */
  storageUsage(page?: ProjectPage): StorageUsage;
  blobInfo(hash: string): BlobInfo | null;
  readDocumentPiece(hash: string, index: number): Uint8Array | null;
  readDocumentPieces(hash: string, firstIndex: number, count: number): Uint8Array[] | null;
  /** The cheapest stored source of a document: its verdict form, else its uploaded bytes (form-table.ts). */
  documentSource(contentHash: string): DocumentSource | null;
  readVerdictBody(hash: string): Promise<Uint8Array | null>;
  /** In name order; `after`: only the names after it (the next page of a list cut at `limit`). */
  listProjects(only: string[] | null, limit?: number | null, after?: string | null): ProjectRecord[];
  /** The names that could be one keystroke from `name` (name-filter.ts nearNameCondition), in name order. */
  projectNamesNear(only: string[] | null, name: string): string[];
  projectCounts(): { total: number; withoutContract: number };
  getProject(name: string): ProjectRecord | null | Promise<ProjectRecord | null>;
  projectStatus(name: string): ProjectStatus | null | Promise<ProjectStatus | null>;
  /** One call for what a snapshot upload reads before its verdict. */
  uploadContext(project: string): UploadContext | Promise<UploadContext>;
  /**
   * What the storage quota is checked against (no scan): in the organization's store, its own database and bucket
   * bytes plus what each project's own store last reported; in a project's store, that store's own.
   */
  storageUsed(): StorageUsed;
  /** This store's own database and bucket bytes. */
  storeUsed(): StorageUsed;
  /** Waits for this contract upload's turn in the project's queue (contract-queue.ts), then answers its context. */
  beginContractUpload(project: string): Promise<UploadContext & { ticket: string }>;
  /** Ends a turn that will not record (harmless when the turn already ended). */
  endContractUpload(project: string, ticket: string): void;
  /**
   * Records a contract version and ends the upload's turn. `change` is the comparison with
   * `change.comparedWithVersion`, which must still be the active version when the write happens: otherwise the
   * answer is `stale_comparison` and the caller takes a new turn. `content` (and `form`, the verdict form, when
   * complete) are completed in the same transaction.
   */
  recordContract(
    ticket: string | null,
    input: Omit<ContractInput, "verdict" | "change">,
    verdict: VerdictBody,
    change: { comparedWithVersion: number; verdict: VerdictBody } | null,
    content: ContentPieces,
    forms: { verdict: ContentPieces | null; comparison: ContentPieces | null },
    acceptedIds?: readonly string[],
  ): Promise<
    | StoreResult<{ contract: ContractRecord; verdict: VerdictRecord; projectCreated: boolean; contentReused: boolean }>
    | { ok: false; code: "stale_comparison"; message: string }
  >;
  contractChangeHash(project: string, version: number): string | null | Promise<string | null>;
  activateContract(project: string, version: number): Promise<StoreResult<{ contract: ContractRecord }>>;
  getContract(project: string, version: number): ContractRecord | null | Promise<ContractRecord | null>;
  getActiveContract(project: string): ContractRecord | null | Promise<ContractRecord | null>;
  listContracts(
    project: string,
    limit: number,
    before: number | null,
  ): Page<ContractRecord> | Promise<Page<ContractRecord>>;
  /** Records a snapshot and its verdict; `content` (the snapshot's bytes) is completed in the same transaction. */
  recordSnapshot(
    input: Omit<SnapshotInput, "verdict">,
    verdict: VerdictBody,
    content: ContentPieces,
    acceptedIds?: readonly string[],
  ): Promise<StoreResult<{ snapshot: SnapshotRecord; verdict: VerdictRecord; contentReused: boolean }>>;
  /** Accepted breaks (acceptance-table.ts): those in force now, recording one, the list with states, revoking. */
  acceptancesInForce(project: string): AcceptedBreak[] | Promise<AcceptedBreak[]>;
  acceptBreak(input: NewAcceptance): Promise<StoreResult<{ acceptance: AcceptedBreakRecord; created: boolean }>>;
  listAcceptedBreaks(project: string, limit: number): AcceptedBreakRecord[] | Promise<AcceptedBreakRecord[]>;
  getAcceptedBreak(project: string, id: string): AcceptedBreakRecord | null | Promise<AcceptedBreakRecord | null>;
  revokeAcceptedBreak(project: string, id: string, revokedBy: string): Promise<AcceptedBreakRecord | null>;
  getSnapshot(project: string, id: number): SnapshotRecord | null | Promise<SnapshotRecord | null>;
  listSnapshots(
    project: string,
    limit: number,
    before: number | null,
  ): Page<SnapshotRecord> | Promise<Page<SnapshotRecord>>;
  recordBuild(input: BuildInput): Promise<StoreResult<{ build: BuildRecord }>>;
  getBuild(project: string, id: number): BuildRecord | null | Promise<BuildRecord | null>;
  listBuilds(project: string, limit: number, before: number | null): Page<BuildRecord> | Promise<Page<BuildRecord>>;
  getVerdict(project: string, id: number): VerdictRecord | null | Promise<VerdictRecord | null>;
  listVerdicts(
    project: string,
    limit: number,
    before: number | null,
  ): Page<VerdictRecord> | Promise<Page<VerdictRecord>>;
  recordExchangeRun(
    input: Omit<ExchangeRunInput, "verdict">,
    verdict: VerdictBody,
    usage?: readonly UsageCount[],
  ): Promise<StoreResult<{ run: ExchangeRunRecord }>>;
  /** The usage index (usage-table.ts): counts posted for a day, and the counts of some operations since a day. */
  recordUsage(project: string, day: string, counts: readonly UsageCount[]): Promise<StoreResult<{ counts: number }>>;
  usageSince(project: string, keys: UsageKey[], sinceDay: string): UsageSince | Promise<UsageSince>;
  getExchangeRun(project: string, id: number): ExchangeRunRecord | null | Promise<ExchangeRunRecord | null>;
  latestExchangeRun(project: string): ExchangeRunRecord | null | Promise<ExchangeRunRecord | null>;
  listExchangeRuns(
    project: string,
    limit: number,
    before: number | null,
  ): Page<ExchangeRunRecord> | Promise<Page<ExchangeRunRecord>>;
  /** Null when the organization has MAX_ACTIVE_KEYS active keys already (nothing stored). */
  createKey(key: NewKey): Promise<CiKeyRecord | null>;
  getKey(id: string): CiKeyRecord | null;
  keyForValidation(id: string): { key: CiKeyRecord; secretHash: string } | null;
  /** Null when `page.after` names no key of this organization. */
  listKeys(page?: KeyPage): CiKeyRecord[] | null;
  keyCounts(nowIso: string): { active: number; revoked: number; expired: number };
  keyNames(ids: string[]): Record<string, string>;
  revokeKey(id: string, revokedBy: string): CiKeyRecord | null;
  /** "full": the project has MAX_SUBSCRIBERS_PER_PROJECT sessions; nothing was recorded. */
  subscribe(project: string, sessionId: string, userId: string): SubscribeResult;
  unsubscribe(project: string, sessionId: string): void;
  unsubscribeAll(project: string, sessionIds: string[]): void;
  subscribers(project: string): string[];
  forgetSession(sessionId: string): number;
  defaultProject(userId: string): string | null;
  setDefaultProject(userId: string, project: string): void;
}

// The Worker's binding of this object, typed by its RPC: declared here, beside the RPC, so src/env.ts imports
// nothing from the rooms above it.
declare module "../../env" {
  interface Env {
    /** The contracts domain's stores: one per organization and one per project (durable-object.ts). */
    CONTRACT_STORE: DurableObjectNamespace<ContractStoreRpc>;
  }
}
