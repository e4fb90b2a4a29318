/**
 * What the ContractStore hands out: plain, JSON-ready records. The REST API returns them as they are and the
 * MCP tools can do the same, so both surfaces describe a stored object identically.
 */

import type { DocumentFacts } from "../../engine";

export interface VerdictRecord {
  id: number;
  project: string;
  /** A contract upload is checked against the constitution; a snapshot against the active contract and it. */
  subject: "contract" | "snapshot";
  snapshotId: number | null;
  contractVersion: number;
  approved: boolean;
  totalViolations: number;
  errorCount: number;
  /** Content hash of the verdict body (`{ approved, totalViolations, violations, summary }`) in the blob store. */
  verdictHash: string;
  createdAt: string;
}

export interface ContractRecord extends DocumentFacts {
  project: string;
  version: number;
  /** Free label such as the Spec Kit feature folder, e.g. `003-orders`. */
  label: string | null;
  active: boolean;
  uploadedBy: string;
  uploadedAt: string;
  verdictId: number | null;
  /** What this version breaks for clients of the version that was active when it was uploaded (null for the first). */
  changes: ContractChangeSummary | null;
}

/** How answers name a snapshot: its number in the project and its id, e.g. "snapshot 1 of shop (id 2, commit abc123)". */
export function snapshotTitle(snapshot: Pick<SnapshotRecord, "id" | "number" | "project" | "commit">): string {
  return `snapshot ${snapshot.number} of ${snapshot.project} (id ${snapshot.id}, commit ${snapshot.commit})`;
}

export interface ContractChangeSummary {
  comparedWithVersion: number;
  /** False when at least one change is an error: it breaks clients of the compared version. */
  approved: boolean;
  /** Error-severity changes: the breaking ones. */
  breakingChanges: number;
  totalViolations: number;
}

export interface SnapshotRecord extends DocumentFacts {
  /**
   * Unique in its project (ids count in the store holding the project: its own, or for a project created before
   * the split the organization's, whose ids count across those projects); what routes and tools take.
   */
  id: number;
  /** 1 for the project's first snapshot, 2 for its second...: what a person counts. */
  number: number;
  project: string;
  commit: string;
  branch: string | null;
  runUrl: string | null;
  /** The contract version the snapshot was checked against. */
  contractVersion: number;
  uploadedBy: string;
  uploadedAt: string;
  verdictId: number | null;
  approved: boolean | null;
  totalViolations: number | null;
}

/** One upload of recorded traffic checked against a contract version. The exchanges are not stored. */
export interface ExchangeRunRecord {
  id: number;
  project: string;
  contractVersion: number;
  format: "har" | "ndjson";
  exchangeCount: number;
  /** sha256 of the uploaded file, so a team can tell which recording was checked. */
  uploadDigest: string;
  approved: boolean;
  totalViolations: number;
  errorCount: number;
  /** Content hash of the verdict body in the blob store. */
  verdictHash: string;
  commit: string | null;
  branch: string | null;
  runUrl: string | null;
  uploadedBy: string;
  uploadedAt: string;
}

export interface BuildRecord {
  id: number;
  project: string;
  status: "failed";
  commit: string;
  branch: string | null;
  runUrl: string | null;
  logExcerpt: string;
  recordedBy: string;
  recordedAt: string;
}

export interface ProjectRecord {
  name: string;
  createdAt: string;
  createdBy: string;
  activeContractVersion: number | null;
  contractCount: number;
  snapshotCount: number;
  latestSnapshotId: number | null;
}

/** Everything a conformance check needs to decide whether it can run and against what. */
export interface ProjectStatus {
  project: ProjectRecord;
  activeContract: ContractRecord | null;
  latestSnapshot: SnapshotRecord | null;
  latestFailedBuild: BuildRecord | null;
  /** True when a failed build was recorded after the latest snapshot (or there is no snapshot yet). */
  lastBuildFailed: boolean;
}

export interface CiKeyRecord {
  id: string;
  name: string;
  /** Project names, or ["*"] for every project of the organization. */
  projects: string[];
  scopes: string[];
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  revokedBy: string | null;
}

/** A list page: `nextBefore` is the cursor for the next (older) page, null at the end. */
export interface Page<T> {
  items: T[];
  nextBefore: number | null;
}

export type StoreFailure =
  | { ok: false; code: "unknown_project"; message: string }
  | { ok: false; code: "no_active_contract"; message: string }
  | { ok: false; code: "unknown_contract"; message: string }
  | { ok: false; code: "missing_content"; message: string }
  | { ok: false; code: "unknown_key"; message: string }
  | { ok: false; code: "busy"; message: string }
  | { ok: false; code: "already_accepted"; message: string }
  | { ok: false; code: "storage_quota_exceeded"; message: string; usedBytes: number; quotaBytes: number };

export type StoreResult<T> = ({ ok: true } & T) | StoreFailure;

/** The two figures the storage quota counts. */
export interface StorageUsed {
  /** The object's SQLite database: records, indexes and content of at most 64 KiB. */
  databaseBytes: number;
  /** Content held in the DOCUMENTS bucket. */
  bucketBytes: number;
}

/** What an organization stores, and what the retention alarm did lately (GET /api/v1/storage). */
export interface StorageUsage extends StorageUsed {
  projects: Array<{
    name: string;
    snapshots: number;
    /** Sizes of its snapshots' and contract versions' documents (content shared between records counts in each). */
    documentBytes: number;
    contracts: number;
    builds: number;
    exchangeRuns: number;
    oldestSnapshotAt: string | null;
  }>;
  retentionRuns: Array<{
    ranAt: string;
    snapshots: number;
    builds: number;
    exchangeRuns: number;
    contentBytes: number;
  }>;
}
