/**
 * ContractStore: one SQLite-backed Durable Object per organization (named by the organization id, which
 * always comes from the verified token or CI key). A single object serialises every write of the
 * organization, so concurrent uploads to one project get distinct version numbers and ids and none is lost.
 * The class is a thin RPC surface; the SQL lives in the *-table.ts modules. Use it through client.ts.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../env";
import {
  completeBlob,
  completeContent,
  getBlob,
  putChunk,
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
  StoreResult,
  VerdictRecord,
} from "./records";
import { CHUNK_BYTES, PIECES_PER_CALL, PIECES_PER_WRITE, SCHEMA_STATEMENTS } from "./schema";
import { addSubscriber, listSubscribers, removeSubscriber } from "./subscriber-table";
import { getDefaultProject, setDefaultProject } from "./default-project-table";
import { sha256Digest } from "../../lib/sha256";
import type { ContractStoreRpc, UploadContext, VerdictBody } from "./rpc";

export class ContractStore extends DurableObject<Env> implements ContractStoreRpc {
  private readonly sql: SqlStorage;
  private readonly contractUploads = new ContractUploadQueue();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => {
      for (const statement of SCHEMA_STATEMENTS) this.sql.exec(statement);
    });
  }

  async purgeOrganization(_organizationId: string): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  exportTables(): Record<string, Array<Record<string, unknown>>> {
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

  private async storeVerdictBody(body: VerdictBody): Promise<VerdictInput> {
    const verdictHash = await sha256Digest(body.json);
    return { approved: body.approved, totalViolations: body.totalViolations, errorCount: body.errorCount, verdictHash };
  }

  // ---- content --------------------------------------------------------------------------------------------

  blobInfo(hash: string): BlobInfo | null {
    return getBlob(this.sql, hash);
  }

  putDocumentPiece(hash: string, index: number, bytes: Uint8Array): void {
    putChunk(this.sql, hash, index, bytes);
  }

  /**
   * Consecutive pieces from `firstIndex` on, sent as one buffer and cut here, in one transaction: a failed call
   * leaves none of them, and its answer waits for one commit. At most PIECES_PER_WRITE pieces (a whole document).
   */
  putDocumentContent(hash: string, firstIndex: number, bytes: Uint8Array): void {
    if (bytes.byteLength > PIECES_PER_WRITE * CHUNK_BYTES)
      throw new RangeError(`at most ${PIECES_PER_WRITE} pieces per call`);
    this.ctx.storage.transactionSync(() => {
      for (let offset = 0; offset < bytes.byteLength; offset += CHUNK_BYTES)
        putChunk(
          this.sql,
          hash,
          firstIndex + offset / CHUNK_BYTES,
          bytes.subarray(offset, Math.min(offset + CHUNK_BYTES, bytes.byteLength)),
        );
    });
  }

  completeDocument(hash: string, size: number, chunkCount: number): boolean {
    return this.ctx.storage.transactionSync(() => completeBlob(this.sql, hash, size, chunkCount));
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

  readVerdictBody(hash: string): Uint8Array | null {
    return readSmallBlob(this.sql, hash);
  }

  // ---- projects and contracts -------------------------------------------------------------------------------

  listProjects(only: string[] | null, limit: number | null = null): ProjectRecord[] {
    return listProjects(this.sql, only, limit);
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
    };
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
  ): Promise<
    | StoreResult<{ contract: ContractRecord; verdict: VerdictRecord; projectCreated: boolean; contentReused: boolean }>
    | { ok: false; code: "stale_comparison"; message: string }
  > {
    try {
      const verdictInput = await this.storeVerdictBody(verdict);
      const changeInput = change
        ? { comparedWithVersion: change.comparedWithVersion, verdict: await this.storeVerdictBody(change.verdict) }
        : undefined;
      return this.ctx.storage.transactionSync(() => {
        const contentReused = getBlob(this.sql, content.hash) !== null;
        if (content.hash !== input.document.contentHash || !completeContent(this.sql, content))
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
        if (forms.verdict && completeContent(this.sql, forms.verdict))
          putForm(this.sql, content.hash, forms.verdict.hash, VERDICT_FORM_VERSION);
        if (forms.comparison && completeContent(this.sql, forms.comparison))
          putForm(this.sql, content.hash, forms.comparison.hash, COMPARISON_FORM_VERSION);
        putSmallBlob(this.sql, verdictInput.verdictHash, verdict.json);
        if (change && changeInput) putSmallBlob(this.sql, changeInput.verdict.verdictHash, change.verdict.json);
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
    } finally {
      if (ticket) this.contractUploads.give(input.project, ticket);
    }
  }

  contractChangeHash(project: string, version: number): string | null {
    return getContractChangeHash(this.sql, project, version);
  }

  activateContract(project: string, version: number): StoreResult<{ contract: ContractRecord }> {
    return this.ctx.storage.transactionSync(() => {
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

  // ---- snapshots, builds, verdicts --------------------------------------------------------------------------

  /** Records a snapshot and its verdict; `content` (the snapshot's bytes) is completed in the same transaction. */
  async recordSnapshot(
    input: Omit<SnapshotInput, "verdict">,
    verdict: VerdictBody,
    content: ContentPieces,
  ): Promise<StoreResult<{ snapshot: SnapshotRecord; verdict: VerdictRecord; contentReused: boolean }>> {
    const verdictInput = await this.storeVerdictBody(verdict);
    return this.ctx.storage.transactionSync(() => {
      if (!getProject(this.sql, input.project))
        return {
          ok: false as const,
          code: "unknown_project" as const,
          message: `There is no project "${input.project}".`,
        };
      const contentReused = getBlob(this.sql, content.hash) !== null;
      if (content.hash !== input.document.contentHash || !completeContent(this.sql, content))
        return {
          ok: false as const,
          code: "missing_content" as const,
          message: "The document content was not stored completely; upload it again.",
        };
      putSmallBlob(this.sql, verdictInput.verdictHash, verdict.json);
      const stored = insertSnapshot(this.sql, { ...input, verdict: verdictInput });
      if (!stored)
        return {
          ok: false as const,
          code: "unknown_contract" as const,
          message: `Project "${input.project}" has no contract version ${input.contractVersion}.`,
        };
      return { ok: true as const, ...stored, contentReused };
    });
  }

  getSnapshot(project: string, id: number): SnapshotRecord | null {
    return getSnapshot(this.sql, project, id);
  }

  listSnapshots(project: string, limit: number, before: number | null): Page<SnapshotRecord> {
    return listSnapshots(this.sql, project, limit, before);
  }

  recordBuild(input: BuildInput): StoreResult<{ build: BuildRecord }> {
    return this.ctx.storage.transactionSync(() => {
      if (!getProject(this.sql, input.project))
        return {
          ok: false as const,
          code: "unknown_project" as const,
          message: `There is no project "${input.project}".`,
        };
      return { ok: true as const, build: insertBuild(this.sql, input) };
    });
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
  ): Promise<StoreResult<{ run: ExchangeRunRecord }>> {
    const verdictInput = await this.storeVerdictBody(verdict);
    return this.ctx.storage.transactionSync(() => {
      if (!getProject(this.sql, input.project))
        return {
          ok: false as const,
          code: "unknown_project" as const,
          message: `There is no project "${input.project}".`,
        };
      putSmallBlob(this.sql, verdictInput.verdictHash, verdict.json);
      const run = insertExchangeRun(this.sql, { ...input, verdict: verdictInput });
      if (!run)
        return {
          ok: false as const,
          code: "unknown_contract" as const,
          message: `Project "${input.project}" has no contract version ${input.contractVersion}.`,
        };
      return { ok: true as const, run };
    });
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
