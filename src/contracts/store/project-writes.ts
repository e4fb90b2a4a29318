/**
 * The writes of a project's history, in the store that holds the project (durable-object.ts routes each write to
 * that store first, project-mover.ts). Each write checks what it depends on and records everything in one
 * transaction: content announced as written to the bucket is checked there before it, verdict bodies over
 * SQL_CONTENT_MAX are written to the bucket before it, so a record never names bytes that are not stored. A refusal is
 * a tagged result (`unknown_project`, `missing_content`, ...), never a half-written record.
 */
import type { Env } from "../../env";
import type { UsageCount } from "../../engine";
import { sha256Digest } from "../../lib/sha256";
import {
  type AcceptedBreakRecord,
  acceptancesInForce,
  getAcceptance,
  insertAcceptance,
  markMatched,
  type NewAcceptance,
  revokeAcceptance,
} from "./acceptance-table";
import {
  bucketBytes,
  completeContent,
  getBlob,
  putSmallBlob,
  recordBucketBlob,
  type ContentPieces,
} from "./blob-table";
import { bucketContentSize, putBucketContent, SQL_CONTENT_MAX } from "./bucket";
import { insertExchangeRun, type ExchangeRunInput } from "./exchange-table";
import { documentSource, putForm } from "./form-table";
import {
  activateContract,
  getActiveContract,
  getProject,
  insertBuild,
  insertContract,
  insertSnapshot,
  type BuildInput,
  type ContractInput,
  type SnapshotInput,
  type VerdictInput,
} from "./ledger-table";
import type {
  BuildRecord,
  ContractRecord,
  ExchangeRunRecord,
  SnapshotRecord,
  StorageUsed,
  StoreResult,
  VerdictRecord,
} from "./records";
import type { UploadContext, VerdictBody } from "./rpc";
import { addUsage, dayOf } from "./usage-table";
import { COMPARISON_FORM_VERSION, VERDICT_FORM_VERSION } from "./verdict-form";

/** What a write needs of the store it runs in. */
export interface WriteContext {
  readonly sql: SqlStorage;
  readonly storage: DurableObjectStorage;
  readonly env: Env;
  /** The store's bucket space (bucket.ts). */
  readonly space: string;
  /** Content hashes whose bucket objects retention is deleting right now: a record of them is refused meanwhile. */
  readonly deletingFromBucket: ReadonlySet<string>;
}

const unknownProject = (project: string) => ({
  ok: false as const,
  code: "unknown_project" as const,
  message: `There is no project "${project}".`,
});

const missingContent = () => ({
  ok: false as const,
  code: "missing_content" as const,
  message: "The document content was not stored completely; upload it again.",
});

const unknownContract = (project: string, version: number) => ({
  ok: false as const,
  code: "unknown_contract" as const,
  message: `Project "${project}" has no contract version ${version}.`,
});

/** The bytes this store holds: its database and the bucket content it records. */
export function storeUsed(context: WriteContext): StorageUsed {
  return { databaseBytes: context.storage.sql.databaseSize, bucketBytes: bucketBytes(context.sql) };
}

/** What a snapshot or contract upload reads before its verdict, in one call. */
export function uploadContext(context: WriteContext, project: string): UploadContext {
  const active = getActiveContract(context.sql, project);
  return {
    projectExists: active !== null || getProject(context.sql, project) !== null,
    active,
    activeSource: active ? documentSource(context.sql, active.contentHash, "compare") : null,
    storage: storeUsed(context),
    acceptances: acceptancesInForce(context.sql, project, Date.now()),
  };
}

/**
 * A verdict body's record, and how to save its bytes inside the record's transaction: a body over SQL_CONTENT_MAX
 * is written to the bucket now, before that transaction, and only recorded in it.
 */
async function prepareVerdictBody(
  context: WriteContext,
  body: VerdictBody,
): Promise<{ input: VerdictInput; there: () => boolean; save: () => void }> {
  const verdictHash = await sha256Digest(body.json);
  const input = {
    approved: body.approved,
    totalViolations: body.totalViolations,
    errorCount: body.errorCount,
    verdictHash,
  };
  if (body.json.byteLength <= SQL_CONTENT_MAX)
    return { input, there: () => true, save: () => putSmallBlob(context.sql, verdictHash, body.json) };
  let check: BucketCheck = "recorded";
  if (!getBlob(context.sql, verdictHash)) {
    await putBucketContent(context.env, context.space, verdictHash, body.json);
    check = "in-bucket";
  }
  return {
    input,
    there: () => stillThere(context, verdictHash, check),
    save: () => recordBucketBlob(context.sql, verdictHash, body.json.byteLength),
  };
}

/**
 * What a write saw of content it names before its transaction: recorded here (bytes this store already holds),
 * found in the bucket with its size (written there beforehand, not yet recorded), or missing.
 */
type BucketCheck = "recorded" | "in-bucket" | "absent";

/**
 * Checks content announced as written to the bucket before the record's transaction, which then only records it.
 * Content recorded here, or held in the database's own pieces, needs no bucket check.
 */
async function checkBucket(context: WriteContext, content: ContentPieces | null): Promise<BucketCheck> {
  if (!content?.inBucket || getBlob(context.sql, content.hash)) return "recorded";
  if (context.deletingFromBucket.has(content.hash)) return "absent"; // retention is deleting these bytes: upload again
  return (await bucketContentSize(context.env, context.space, content.hash)) === content.size ? "in-bucket" : "absent";
}

/**
 * Inside the record's transaction: whether bucket content checked before it may be recorded. The checks and the
 * transaction are apart by the write's other waits, during which retention may run: content that was recorded when
 * checked and is not any more was this store's last reference, so its bytes are deleted or about to be.
 */
function stillThere(context: WriteContext, hash: string, check: BucketCheck): boolean {
  if (check === "absent") return false;
  if (getBlob(context.sql, hash)) return true;
  return check === "in-bucket" && !context.deletingFromBucket.has(hash);
}

/** stillThere for content whose pieces may be in the database rather than in the bucket. */
function contentStillThere(context: WriteContext, content: ContentPieces | null, check: BucketCheck): boolean {
  if (content && !content.inBucket) return check !== "absent";
  return content !== null && stillThere(context, content.hash, check);
}

/**
 * Records a contract version. `change` is the comparison with `change.comparedWithVersion`, which must still be the
 * active version when the write happens (it is, unless the upload's turn ran out or a version was activated by hand
 * meanwhile): otherwise the answer is `stale_comparison` and the caller takes a new turn, so no version is ever
 * recorded as compared with a version it was not compared with. `content` is completed here, in the same
 * transaction; its forms (verdict-form.ts) when they are complete too.
 */
export async function recordContract(
  context: WriteContext,
  input: Omit<ContractInput, "verdict" | "change">,
  verdict: VerdictBody,
  change: { comparedWithVersion: number; verdict: VerdictBody } | null,
  content: ContentPieces,
  forms: { verdict: ContentPieces | null; comparison: ContentPieces | null },
  /** The accepted breaks the change's verdict used (marked matched with the record). */
  acceptedIds: readonly string[],
): Promise<
  | StoreResult<{ contract: ContractRecord; verdict: VerdictRecord; projectCreated: boolean; contentReused: boolean }>
  | { ok: false; code: "stale_comparison"; message: string }
> {
  const { sql } = context;
  const verdictBody = await prepareVerdictBody(context, verdict);
  const changeBody = change ? await prepareVerdictBody(context, change.verdict) : undefined;
  const changeInput =
    change && changeBody ? { comparedWithVersion: change.comparedWithVersion, verdict: changeBody.input } : undefined;
  const [contentCheck, verdictFormCheck, comparisonFormCheck] = await Promise.all([
    checkBucket(context, content),
    checkBucket(context, forms.verdict),
    checkBucket(context, forms.comparison),
  ]);
  return context.storage.transactionSync(() => {
    // Every check before the first write: a transaction that returns keeps what it wrote.
    const verdictForm = contentStillThere(context, forms.verdict, verdictFormCheck) ? forms.verdict : null;
    const comparisonForm = contentStillThere(context, forms.comparison, comparisonFormCheck) ? forms.comparison : null;
    const bodiesThere = verdictBody.there() && (changeBody?.there() ?? true);
    const contentReused = getBlob(sql, content.hash) !== null;
    if (
      content.hash !== input.document.contentHash ||
      !bodiesThere ||
      !contentStillThere(context, content, contentCheck) ||
      !completeContent(sql, content)
    )
      return missingContent();
    const active = getActiveContract(sql, input.project);
    if ((active?.version ?? null) !== (change?.comparedWithVersion ?? null)) {
      return {
        ok: false as const,
        code: "stale_comparison" as const,
        message: "The active contract changed while this upload was being compared with it.",
      };
    }
    if (verdictForm && completeContent(sql, verdictForm))
      putForm(sql, content.hash, verdictForm.hash, VERDICT_FORM_VERSION);
    if (comparisonForm && completeContent(sql, comparisonForm))
      putForm(sql, content.hash, comparisonForm.hash, COMPARISON_FORM_VERSION);
    verdictBody.save();
    changeBody?.save();
    markMatched(sql, acceptedIds, null, Date.now());
    return {
      ok: true as const,
      ...insertContract(sql, { ...input, verdict: verdictBody.input, ...(changeInput ? { change: changeInput } : {}) }),
      contentReused,
    };
  });
}

export function activateContractVersion(
  context: WriteContext,
  project: string,
  version: number,
): StoreResult<{ contract: ContractRecord }> {
  return context.storage.transactionSync(() => {
    if (!getProject(context.sql, project)) return unknownProject(project);
    const contract = activateContract(context.sql, project, version);
    if (!contract) return unknownContract(project, version);
    return { ok: true as const, contract };
  });
}

/**
 * Records an acceptance, unless the project is unknown or the same change already has another one in force; the
 * very same acceptance again answers the one recorded (`created: false`).
 */
export function acceptBreak(
  context: WriteContext,
  input: NewAcceptance,
): StoreResult<{ acceptance: AcceptedBreakRecord; created: boolean }> {
  const { sql } = context;
  return context.storage.transactionSync(() => {
    if (!getProject(sql, input.project)) return unknownProject(input.project);
    const now = Date.now();
    const existing = acceptancesInForce(sql, input.project, now).find(
      (acceptance) => acceptance.fingerprint === input.fingerprint,
    );
    // The same acceptance again (a retried call) answers the one in force; anything else about it is a conflict.
    if (
      existing &&
      existing.reason === input.reason &&
      existing.owner === input.owner &&
      existing.expiresAt === input.expiresAt
    )
      return { ok: true as const, acceptance: getAcceptance(sql, input.project, existing.id, now)!, created: false };
    if (existing)
      return {
        ok: false as const,
        code: "already_accepted" as const,
        message: `This change (${input.fingerprint}) is already accepted by ${existing.id} until ${existing.expiresAt}: revoke it first (DELETE /api/v1/projects/${input.project}/accepted-breaks/${existing.id}) to accept it again with another reason or expiry.`,
      };
    return { ok: true as const, acceptance: insertAcceptance(sql, input, now), created: true };
  });
}

export function revokeAcceptedBreak(
  context: WriteContext,
  project: string,
  id: string,
  revokedBy: string,
): AcceptedBreakRecord | null {
  return revokeAcceptance(context.sql, project, id, revokedBy, Date.now());
}

/** Records a snapshot and its verdict; `content` (the snapshot's bytes) is completed in the same transaction. */
export async function recordSnapshot(
  context: WriteContext,
  input: Omit<SnapshotInput, "verdict">,
  verdict: VerdictBody,
  content: ContentPieces,
  /** The accepted breaks the verdict used (marked matched by this snapshot). */
  acceptedIds: readonly string[],
): Promise<StoreResult<{ snapshot: SnapshotRecord; verdict: VerdictRecord; contentReused: boolean }>> {
  const { sql } = context;
  const verdictBody = await prepareVerdictBody(context, verdict);
  const contentCheck = await checkBucket(context, content);
  return context.storage.transactionSync(() => {
    if (!getProject(sql, input.project)) return unknownProject(input.project);
    const contentReused = getBlob(sql, content.hash) !== null;
    if (
      content.hash !== input.document.contentHash ||
      !verdictBody.there() ||
      !contentStillThere(context, content, contentCheck) ||
      !completeContent(sql, content)
    )
      return missingContent();
    verdictBody.save();
    const stored = insertSnapshot(sql, { ...input, verdict: verdictBody.input });
    if (!stored) return unknownContract(input.project, input.contractVersion);
    markMatched(sql, acceptedIds, stored.snapshot.id, Date.now());
    return { ok: true as const, ...stored, contentReused };
  });
}

export function recordBuild(context: WriteContext, input: BuildInput): StoreResult<{ build: BuildRecord }> {
  return context.storage.transactionSync(() => {
    if (!getProject(context.sql, input.project)) return unknownProject(input.project);
    return { ok: true as const, build: insertBuild(context.sql, input) };
  });
}

/** Records a run of recorded traffic, its verdict and the usage counts it observed. */
export async function recordExchangeRun(
  context: WriteContext,
  input: Omit<ExchangeRunInput, "verdict">,
  verdict: VerdictBody,
  usage: readonly UsageCount[],
): Promise<StoreResult<{ run: ExchangeRunRecord }>> {
  const { sql } = context;
  const verdictBody = await prepareVerdictBody(context, verdict);
  return context.storage.transactionSync(() => {
    if (!getProject(sql, input.project)) return unknownProject(input.project);
    if (!verdictBody.there()) return missingContent();
    verdictBody.save();
    const run = insertExchangeRun(sql, { ...input, verdict: verdictBody.input });
    if (!run) return unknownContract(input.project, input.contractVersion);
    addUsage(sql, input.project, dayOf(Date.now()), usage);
    return { ok: true as const, run };
  });
}

/** Counts a gateway or middleware posted for `day` (the ingest route checked them). */
export function recordUsage(
  context: WriteContext,
  project: string,
  day: string,
  counts: readonly UsageCount[],
): StoreResult<{ counts: number }> {
  return context.storage.transactionSync(() => {
    if (!getProject(context.sql, project)) return unknownProject(project);
    addUsage(context.sql, project, day, counts);
    return { ok: true as const, counts: counts.length };
  });
}
