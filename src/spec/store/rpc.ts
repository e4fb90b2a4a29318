/**
 * What an organization's ContractStore (the Durable Object in durable-object.ts) offers over RPC, and the verdict
 * body it takes. Env types the CONTRACT_STORE binding by this interface, so no caller imports the class; the class
 * implements it, so the two cannot drift. Callers go through client.ts.
 */
import type { BlobInfo } from "./blob-table";
import type { ExchangeRunInput } from "./exchange-table";
import type { NewKey } from "./key-table";
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

/** The store's RPC methods (a stub answers each with a promise). */
export interface ContractStoreRpc extends Rpc.DurableObjectBranded {
  blobInfo(hash: string): BlobInfo | null;
  putDocumentPiece(hash: string, index: number, bytes: Uint8Array): void;
  completeDocument(hash: string, size: number, chunkCount: number): boolean;
  readDocumentPiece(hash: string, index: number): Uint8Array | null;
  readVerdictBody(hash: string): Uint8Array | null;
  listProjects(only: string[] | null): ProjectRecord[];
  getProject(name: string): ProjectRecord | null;
  projectStatus(name: string): ProjectStatus | null;
  /**
   * `change` is the comparison with `change.comparedWithVersion`, which must still be the active version when the
   * write happens: if another upload activated a version in between, the answer is `stale_comparison` and the
   * caller compares again, so no version is ever recorded as compared with a version it was not compared with.
   */
  recordContract(
    input: Omit<ContractInput, "verdict" | "change">,
    verdict: VerdictBody,
    change?: { comparedWithVersion: number; verdict: VerdictBody },
  ): Promise<StoreResult<{ contract: ContractRecord; verdict: VerdictRecord; projectCreated: boolean }> | { ok: false; code: "stale_comparison"; message: string }>;
  contractChangeHash(project: string, version: number): string | null;
  activateContract(project: string, version: number): StoreResult<{ contract: ContractRecord }>;
  getContract(project: string, version: number): ContractRecord | null;
  getActiveContract(project: string): ContractRecord | null;
  listContracts(project: string, limit: number, before: number | null): Page<ContractRecord>;
  recordSnapshot(input: Omit<SnapshotInput, "verdict">, verdict: VerdictBody): Promise<StoreResult<{ snapshot: SnapshotRecord; verdict: VerdictRecord }>>;
  getSnapshot(project: string, id: number): SnapshotRecord | null;
  listSnapshots(project: string, limit: number, before: number | null): Page<SnapshotRecord>;
  recordBuild(input: BuildInput): StoreResult<{ build: BuildRecord }>;
  getBuild(project: string, id: number): BuildRecord | null;
  listBuilds(project: string, limit: number, before: number | null): Page<BuildRecord>;
  getVerdict(project: string, id: number): VerdictRecord | null;
  listVerdicts(project: string, limit: number, before: number | null): Page<VerdictRecord>;
  recordExchangeRun(input: Omit<ExchangeRunInput, "verdict">, verdict: VerdictBody): Promise<StoreResult<{ run: ExchangeRunRecord }>>;
  getExchangeRun(project: string, id: number): ExchangeRunRecord | null;
  latestExchangeRun(project: string): ExchangeRunRecord | null;
  listExchangeRuns(project: string, limit: number, before: number | null): Page<ExchangeRunRecord>;
  createKey(key: NewKey): CiKeyRecord;
  getKey(id: string): CiKeyRecord | null;
  keyForValidation(id: string): { key: CiKeyRecord; secretHash: string } | null;
  listKeys(): CiKeyRecord[];
  revokeKey(id: string, revokedBy: string): CiKeyRecord | null;
  subscribe(project: string, sessionId: string): void;
  unsubscribe(project: string, sessionId: string): void;
  subscribers(project: string): string[];
  defaultProject(userId: string): string | null;
  setDefaultProject(userId: string, project: string): void;
}
