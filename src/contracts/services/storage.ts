/**
 * How much an organization stores, and the quota every upload is checked against before its bytes are written.
 * The quota counts the organization's contract stores (its own and each project's) with their SQLite databases and
 * their content in the DOCUMENTS bucket; it is the organization's `storageQuotaBytes` (set by the operator), else
 * the operator's `caps.storageQuotaBytes`. Whatever the quota, a store whose database is past
 * DATABASE_REFUSAL_BYTES refuses uploads: Cloudflare stops a Durable Object's writes at 10 GB, and a store must
 * keep room to record retention runs and CI keys (docs/storage.md "When storage fills").
 */
import { resolveOrganization } from "../../directory/client";
import type { Env } from "../../env";
import { cutPage, oneMore } from "../../lib/page";
import { contractStore, type ProjectPlace } from "../store/client";
import { policyFor, RETENTION_INTERVAL_MS, type RetentionPolicy } from "../store/retention-table";
import type { RetentionNow } from "../store/rpc";
import type { ContractsCaller } from "./caller";
import { storeOf } from "./store-access";
import type { StorageUsage, StorageUsed, StoreFailure } from "../store/records";

/** 90% of the 10 GB a Durable Object's SQLite database may hold on Cloudflare. */
export const DATABASE_REFUSAL_BYTES = 9_000_000_000;

export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * What the uploading project holds. Other projects are not named: a CI key may be limited to some projects, and
 * GET /api/v1/storage shows each one to those who may see it.
 */
function projectHoldings(usage: StorageUsage, name: string): string {
  const project = usage.projects.find((candidate) => candidate.name === name);
  if (!project) return "";
  const oldest = project.oldestSnapshotAt ? `, the oldest from ${project.oldestSnapshotAt.slice(0, 10)}` : "";
  const plural = project.snapshots === 1 ? "" : "s";
  return ` Project "${name}" holds ${formatBytes(project.documentBytes)} of documents in ${project.snapshots} snapshot${plural}${oldest}.`;
}

const HOURS_BETWEEN_RUNS = RETENTION_INTERVAL_MS / 3_600_000;

/** What the quota check reads: the organization's total, and the bytes of the store the upload goes to. */
export interface QuotaUse {
  organization: StorageUsed;
  /** The uploading project's store: its database is what the platform's per-store limit counts. */
  store: StorageUsed;
}

/** The organization's total (from its store) beside the project store's own bytes (`own` when already read). */
export async function quotaUse(place: ProjectPlace, own?: StorageUsed): Promise<QuotaUse> {
  const [organization, store] = await Promise.all([
    contractStore(place.env, place.organizationId).storageUsed(),
    own ?? place.store.storeUsed(),
  ]);
  return { organization, store };
}

/**
 * Null when an upload of `upload.bytes` fits; else the refusal, naming what holds the space and what to
 * delete or raise. Nothing has been written when it is answered.
 */
export async function storageRefusal(
  env: Env,
  organizationId: string,
  use: QuotaUse,
  upload: { project: string; bytes: number },
): Promise<StoreFailure | null> {
  const incomingBytes = upload.bytes;
  const resolved = await resolveOrganization(env, organizationId);
  const quota = resolved?.storageQuotaBytes ?? null;
  const used = use.organization;
  const total = used.databaseBytes + used.bucketBytes;
  const overDatabase = use.store.databaseBytes >= DATABASE_REFUSAL_BYTES;
  if (quota === null || (!overDatabase && total + incomingBytes <= quota)) return null;
  // The refusal names what the uploading project holds: its row alone is read, not every project's.
  const usage = await contractStore(env, organizationId).storageUsage({ only: [upload.project] });
  // The policy the uploading project is kept by (its own values over the organization's).
  const policy = policyFor(resolved?.record.settings.retention, upload.project);
  const makeRoom =
    ` To make room, shorten retention (organization settings \`retention.snapshotDays\`, now ${policy.snapshotDays}` +
    ` days, or \`retention.keepPerBranch\`, now ${policy.keepPerBranch}; per project under \`retention.projects\`):` +
    ` the next retention run, within ${HOURS_BETWEEN_RUNS} hours, deletes what expired (an administrator runs it at` +
    " once: POST /api/v1/storage/retention-runs). GET /api/v1/storage shows" +
    " what each project holds.";
  const message = overDatabase
    ? `This upload is refused and nothing was stored: the store of project "${upload.project}" holds ${formatBytes(use.store.databaseBytes)} of records, near the platform's 10 GB per store.${projectHoldings(usage, upload.project)}${makeRoom}`
    : `This upload is refused and nothing was stored: the organization stores ${formatBytes(total)} (records ${formatBytes(used.databaseBytes)}, documents ${formatBytes(used.bucketBytes)}) of its ${formatBytes(quota)} storage quota, and this upload adds ${formatBytes(incomingBytes)}.${projectHoldings(usage, upload.project)}${makeRoom} Or ask the deployment's operator to raise the organization's \`storageQuotaBytes\`.`;
  return { ok: false, code: "storage_quota_exceeded", message, usedBytes: total, quotaBytes: quota };
}

/** GET /api/v1/storage and the console's storage line: usage against the quota, per project with its retention. */
export interface StorageReport extends StorageUsed {
  usedBytes: number;
  quotaBytes: number;
  /** Uploads are refused past this database size whatever the quota. */
  databaseRefusalBytes: number;
  retention: RetentionPolicy & { runEveryHours: number };
  projects: Array<StorageUsage["projects"][number] & { retention: RetentionPolicy }>;
  /** With a page limit: the project name to pass as `after` for the next page; null on the last page. */
  nextAfter: string | null;
  retentionRuns: StorageUsage["retentionRuns"];
}

/**
 * `visible`: the projects the caller may see (a CI key's list), null for all of them; `page`: at most `limit` of
 * them by name, those after `after` (the store reads only those).
 */
export async function storageReport(
  env: Env,
  organizationId: string,
  visible: readonly string[] | null,
  page: { limit?: number | null; after?: string | null } = {},
): Promise<StorageReport> {
  const limit = page.limit ?? null;
  const [usage, resolved] = await Promise.all([
    contractStore(env, organizationId).storageUsage({
      only: visible,
      limit: oneMore(limit),
      after: page.after ?? null,
    }),
    resolveOrganization(env, organizationId),
  ]);
  const { items: listed, nextAfter } = cutPage(usage.projects, limit, (project) => project.name);
  const retention = resolved?.record.settings.retention;
  return {
    databaseBytes: usage.databaseBytes,
    bucketBytes: usage.bucketBytes,
    usedBytes: usage.databaseBytes + usage.bucketBytes,
    quotaBytes: resolved?.storageQuotaBytes ?? 0,
    databaseRefusalBytes: DATABASE_REFUSAL_BYTES,
    retention: { ...policyFor(retention, ""), runEveryHours: HOURS_BETWEEN_RUNS },
    projects: listed.map((project) => ({ ...project, retention: policyFor(retention, project.name) })),
    nextAfter,
    retentionRuns: usage.retentionRuns,
  };
}

/**
 * Runs the organization's retention now (what the alarm runs), in its store and up to RETENTION_NOW_PROJECTS
 * projects' stores, the others following by alarm; null when the organization is gone.
 */
export function runRetentionNow(caller: ContractsCaller): Promise<RetentionNow | null> {
  return storeOf(caller).runRetentionNow();
}
