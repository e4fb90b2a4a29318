/**
 * The upload paths shared by REST (and any MCP tool that uploads): validate the document, store its bytes
 * content-addressed, compute the verdict, record it. Nothing is stored before the document has been parsed and
 * validated, so an invalid document leaves no trace. Memory: the caller's body buffer, the decoded text (freed
 * once parsed) and the parsed document; for a snapshot the active contract is loaded only after the snapshot's
 * bytes are stored, so the peak holds two parsed documents and one set of bytes, never two texts.
 */
import { breakingChangesPolicy, getConformanceConfig } from "../../engine/config";
import { checkConformance, checkConstitution, compareContractVersions } from "../../engine/engine";
import type { DocumentProblem, OpenApiDocument, Verdict } from "../../engine/types";
import { encodeVerdict } from "../../engine/encode-verdict";
import { contractStore, readContent, storeContent } from "../store/client";
import { parseDocumentBytes } from "../../engine/parse-upload";
import type { ContractRecord, SnapshotRecord, StoreFailure, VerdictRecord } from "../store/records";


export interface Uploader {
  organizationId: string;
  /** Who uploads: a user id, or `ci-key:<id>`. */
  uploadedBy: string;
}

/** A stored document, parsed again (stored documents were valid when uploaded). */
export async function loadStoredDocument(env: Parameters<typeof readContent>[0], organizationId: string, contentHash: string): Promise<OpenApiDocument | null> {
  const bytes = await readContent(env, organizationId, contentHash);
  if (!bytes) return null;
  const parsed = parseDocumentBytes(bytes, { unknownFields: "ignore" });
  return parsed.ok ? parsed.document : null;
}

/** What the new version breaks for clients of the version that was active when it was uploaded. */
export interface ContractChange {
  comparedWithVersion: number;
  verdict: Verdict;
}

export type ContractUpload =
  | {
      ok: true;
      contract: ContractRecord;
      verdictRecord: VerdictRecord;
      verdict: Verdict;
      projectCreated: boolean;
      contentReused: boolean;
      /** Null for a project's first version. */
      change: ContractChange | null;
    }
  | { ok: false; code: "invalid_document"; problems: DocumentProblem[] }
  | StoreFailure;

export interface ContractUploadOptions {
  /** The uploader says a contract without operations is intended (a 3.1 document of webhooks or components). */
  allowEmpty?: boolean;
}

/**
 * A contract without operations is almost always a typo (`path:` for `paths:`, `gett:` for `get:`) that would be
 * stored, made active and then blame every snapshot for undocumented operations; it is refused unless intended.
 */
function emptyContractProblem(document: OpenApiDocument): DocumentProblem {
  const where = document.paths === undefined ? "the document has no `paths`" : "`paths` holds no operation";
  return {
    path: document.paths === undefined ? "" : "/paths",
    message: `the contract declares no operations (${where}). If that is intended (a 3.1 document of webhooks or components only), upload it again with ?allowEmpty=true; otherwise check the spelling of \`paths\` and of the methods (get, post, ...).`,
  };
}

/**
 * Concurrent contract uploads to one project each compare with the active version; one whose comparison went
 * stale (another version was activated meanwhile) compares again. Every retry means another upload landed, so
 * this bound is only reached by more concurrent uploads of one project than it allows.
 */
const MAX_COMPARISON_ATTEMPTS = 16;

/**
 * Validates and stores a contract version, checks it against the constitution and compares it with the active
 * version. It becomes active unless the policy (conformance.json contractEvolution.breakingChanges = "refuse")
 * keeps a version with breaking changes inactive.
 */
export async function uploadContract(
  env: Parameters<typeof readContent>[0],
  who: Uploader,
  project: string,
  label: string | null,
  bytes: Uint8Array,
  options: ContractUploadOptions = {},
): Promise<ContractUpload> {
  const parsed = parseDocumentBytes(bytes);
  if (!parsed.ok) return { ok: false, code: "invalid_document", problems: parsed.problems };
  if (parsed.facts.operationCount === 0 && options.allowEmpty !== true) return { ok: false, code: "invalid_document", problems: [emptyContractProblem(parsed.document)] };
  const config = getConformanceConfig();
  const verdict = checkConstitution(parsed.document, config);
  const content = await storeContent(env, who.organizationId, bytes);
  const store = contractStore(env, who.organizationId);
  for (let attempt = 0; attempt < MAX_COMPARISON_ATTEMPTS; attempt++) {
    const active = await store.getActiveContract(project);
    let change: ContractChange | null = null;
    if (active) {
      const previous = await loadStoredDocument(env, who.organizationId, active.contentHash);
      if (!previous) return { ok: false, code: "missing_content", message: `The stored document of the active contract version ${active.version} cannot be read; upload it again before its successor.` };
      // Versions are numbered in upload order: this one becomes the next number (a concurrent upload makes
      // the comparison stale and it is done again).
      const next = ((await store.getProject(project))?.contractCount ?? active.version) + 1;
      change = { comparedWithVersion: active.version, verdict: compareContractVersions(previous, parsed.document, config, { from: `v${active.version}`, to: `v${next}` }) };
    }
    const activate = change === null || change.verdict.approved || breakingChangesPolicy(config, who.organizationId) === "warn";
    const stored = await store.recordContract(
      { project, label, document: { contentHash: content.hash, size: content.size, ...parsed.facts }, uploadedBy: who.uploadedBy, activate },
      encodeVerdict(verdict),
      change ? { comparedWithVersion: change.comparedWithVersion, verdict: encodeVerdict(change.verdict) } : undefined,
    );
    if (!stored.ok && stored.code === "stale_comparison") continue;
    if (!stored.ok) return stored;
    return { ok: true, contract: stored.contract, verdictRecord: stored.verdict, verdict, projectCreated: stored.projectCreated, contentReused: content.reused, change };
  }
  return { ok: false, code: "busy", message: `Other contract versions of "${project}" were being uploaded at the same time; upload this one again.` };
}

export interface SnapshotMeta {
  commit: string;
  branch: string | null;
  runUrl: string | null;
}

export type SnapshotUpload =
  | { ok: true; snapshot: SnapshotRecord; verdictRecord: VerdictRecord; verdict: Verdict; contract: ContractRecord; contentReused: boolean }
  | { ok: false; code: "invalid_document"; problems: DocumentProblem[] }
  | StoreFailure;

/**
 * `bytesHolder.bytes` is released (set to undefined) once stored, so the body buffer can be collected before the
 * contract is loaded.
 */
export async function uploadSnapshot(
  env: Parameters<typeof readContent>[0],
  who: Uploader,
  project: string,
  meta: SnapshotMeta,
  bytesHolder: { bytes?: Uint8Array },
): Promise<SnapshotUpload> {
  const store = contractStore(env, who.organizationId);
  if (!bytesHolder.bytes) throw new Error("no snapshot bytes");
  // No local reference to the bytes: the holder is the only one, so clearing it frees them.
  const parsed = parseDocumentBytes(bytesHolder.bytes);
  if (!parsed.ok) return { ok: false, code: "invalid_document", problems: parsed.problems };
  const contract = await store.getActiveContract(project);
  if (!contract) {
    return (await store.getProject(project))
      ? { ok: false, code: "no_active_contract", message: `Project "${project}" has no active contract: upload one with POST /api/v1/projects/${project}/contracts.` }
      : { ok: false, code: "unknown_project", message: `There is no project "${project}".` };
  }
  const content = await storeContent(env, who.organizationId, bytesHolder.bytes);
  bytesHolder.bytes = undefined;
  const contractDocument = await loadStoredDocument(env, who.organizationId, contract.contentHash);
  if (!contractDocument) return { ok: false, code: "missing_content", message: `The stored document of contract version ${contract.version} cannot be read; upload the contract again.` };
  const verdict = checkConformance(contractDocument, parsed.document, getConformanceConfig());
  const stored = await store.recordSnapshot(
    {
      project,
      contractVersion: contract.version,
      commit: meta.commit,
      branch: meta.branch,
      runUrl: meta.runUrl,
      document: { contentHash: content.hash, size: content.size, ...parsed.facts },
      uploadedBy: who.uploadedBy,
    },
    encodeVerdict(verdict),
  );
  if (!stored.ok) return stored;
  return { ok: true, snapshot: stored.snapshot, verdictRecord: stored.verdict, verdict, contract, contentReused: content.reused };
}
