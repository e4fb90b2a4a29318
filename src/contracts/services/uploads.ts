/**
 * The upload paths shared by REST (and any MCP tool that uploads): validate the document, store its bytes
 * content-addressed, compute the verdict, record it. Nothing is stored before the document has been parsed and
 * validated, so an invalid document leaves no trace. The active contract is read back, as the contract side of the
 * verdict, from its comparison form, else its verdict form (verdict-form.ts: one ASCII decode and one JSON.parse, no
 * re-validation), or from its uploaded bytes when it has neither; a contract upload stores both forms. Calls to the
 * store: a small upload makes two (the context, then the record with its bytes inline); a large one adds one call
 * with all its pieces, and the reads of the active version's pieces, overlapped with it.
 * Memory: the caller's body buffer, the decoded text (freed once parsed) and the parsed document; for a snapshot the
 * body is released once its pieces are stored, before the contract's form is decoded, so the peak holds two parsed
 * documents and the form's bytes, never two texts of the full documents.
 */
import { breakingChangesPolicy } from "../../engine";
import { conformanceConfigFor } from "./organization-config";
import { checkConformance, checkConstitution, compareContractVersions } from "../../engine";
import type { DocumentProblem, OpenApiDocument, Verdict } from "../../engine";
import { encodeVerdict } from "../../engine";
import { parseDocumentBytes } from "../../engine";
import { unsafePatternProblems } from "../../engine";
import type { Env } from "../../env";
import {
  type ContentPlace,
  prepareContent,
  type ProjectPlace,
  projectPlace,
  readContent,
  readPieces,
} from "../store/client";
import type { DocumentSource } from "../store/form-table";
import { sha256Digest } from "../../lib/sha256";
import type { ContractRecord, SnapshotRecord, StoreFailure, VerdictRecord } from "../store/records";
import type { UploadContext } from "../store/rpc";
import { decodeVerdictForm, encodeComparisonForm, encodeVerdictForm } from "../store/verdict-form";
import { quotaUse, storageRefusal } from "./storage";
import { storeFailure } from "./failure";
import { acceptedIdsOf, withAcceptances } from "./acceptances";
import { withUsageEvidence } from "./usage";

export interface Uploader {
  organizationId: string;
  /** Who uploads: a user id, or `ci-key:<id>`. */
  uploadedBy: string;
}

/** A stored document from its source: a verdict form is decoded; uploaded bytes are parsed again (they were valid). */
export function documentFromSource(source: Pick<DocumentSource, "kind">, bytes: Uint8Array): OpenApiDocument | null {
  if (source.kind === "form") return decodeVerdictForm(bytes);
  const parsed = parseDocumentBytes(bytes, { unknownFields: "ignore" });
  return parsed.ok ? parsed.document : null;
}

async function readSource(
  place: ContentPlace,
  source: DocumentSource,
  contentHash: string,
  alreadyRead?: Uint8Array | null,
): Promise<OpenApiDocument | null> {
  const bytes = alreadyRead === undefined ? await readPieces(place, source) : alreadyRead;
  const document = bytes ? documentFromSource(source, bytes) : null;
  if (document || source.kind === "document") return document;
  // A form that cannot be read (the store never writes one) must not hide the document: read the bytes.
  return loadOriginal(place, contentHash);
}

async function loadOriginal(place: ContentPlace, contentHash: string): Promise<OpenApiDocument | null> {
  const bytes = await readContent(place, contentHash);
  return bytes ? documentFromSource({ kind: "document" }, bytes) : null;
}

/** A stored document of a project for reading: from its verdict form when it has one, else its bytes parsed again. */
export async function loadStoredDocument(place: ContentPlace, contentHash: string): Promise<OpenApiDocument | null> {
  const source = await place.store.documentSource(contentHash);
  return source ? readSource(place, source, contentHash) : null;
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
 * A comparison goes stale only when a turn's lease ran out or a version was activated by hand meanwhile
 * (contract-queue.ts); the upload then takes a new turn. This bound is never reached by uploads alone.
 */
const MAX_COMPARISON_ATTEMPTS = 8;

/**
 * Validates and stores a contract version, checks it against the constitution and compares it with the active
 * version. It becomes active unless the policy (conformance.json contractEvolution.breakingChanges = "refuse")
 * keeps a version with breaking changes inactive. Concurrent uploads to one project wait for their turn in the
 * store (beginContractUpload), so each compares with its predecessor and none is refused.
 */
export async function uploadContract(
  env: Env,
  who: Uploader,
  project: string,
  label: string | null,
  bytes: Uint8Array,
  options: ContractUploadOptions = {},
): Promise<ContractUpload> {
  const parsed = parseDocumentBytes(bytes);
  if (!parsed.ok) return { ok: false, code: "invalid_document", problems: parsed.problems };
  if (parsed.facts.operationCount === 0 && options.allowEmpty !== true)
    return { ok: false, code: "invalid_document", problems: [emptyContractProblem(parsed.document)] };
  const unsafePatterns = unsafePatternProblems(parsed.document);
  if (unsafePatterns.length > 0) return { ok: false, code: "invalid_document", problems: unsafePatterns };
  const config = await conformanceConfigFor(env, who.organizationId);
  const verdict = checkConstitution(parsed.document, config);
  const place = await projectPlace(env, who.organizationId, project);
  const { store } = place;
  // The document and its two forms (each about the document's size at most).
  const full = await storageRefusal(env, who.organizationId, await quotaUse(place), {
    project,
    bytes: 3 * bytes.byteLength,
  });
  if (full) return full;
  const contentHash = await sha256Digest(bytes);
  const prepareForm = async (formBytes: Uint8Array | null) =>
    formBytes ? prepareContent(place, formBytes, await sha256Digest(formBytes)) : null;
  const [content, form, comparisonForm] = await Promise.all([
    prepareContent(place, bytes, contentHash),
    prepareForm(encodeVerdictForm(parsed.document, parsed.facts.format)),
    prepareForm(encodeComparisonForm(parsed.document, parsed.facts.format)),
  ]);
  for (let attempt = 0; attempt < MAX_COMPARISON_ATTEMPTS; attempt++) {
    const turn = await store.beginContractUpload(project);
    let recorded = false;
    try {
      let change: ContractChange | null = null;
      if (turn.active) {
        const previous = turn.activeSource ? await readSource(place, turn.activeSource, turn.active.contentHash) : null;
        if (!previous)
          return {
            ok: false,
            code: "missing_content",
            message: `The stored document of the active contract version ${turn.active.version} cannot be read; upload it again before its successor.`,
          };
        // Versions are numbered in upload order and this upload holds the project's turn: it becomes the next number.
        const next = ((await store.getProject(project))?.contractCount ?? turn.active.version) + 1;
        const projectConfig = withAcceptances(config, turn.acceptances);
        const compared = compareContractVersions(previous, parsed.document, projectConfig, {
          from: `v${turn.active.version}`,
          to: `v${next}`,
        });
        change = {
          comparedWithVersion: turn.active.version,
          verdict: await withUsageEvidence(env, who.organizationId, project, compared, projectConfig),
        };
      }
      const activate =
        change === null || change.verdict.approved || breakingChangesPolicy(config, who.organizationId) === "warn";
      const stored = await store.recordContract(
        turn.ticket,
        {
          project,
          label,
          document: { contentHash, size: bytes.byteLength, ...parsed.facts },
          uploadedBy: who.uploadedBy,
          activate,
        },
        encodeVerdict(verdict),
        change ? { comparedWithVersion: change.comparedWithVersion, verdict: encodeVerdict(change.verdict) } : null,
        content.pieces,
        { verdict: form?.pieces ?? null, comparison: comparisonForm?.pieces ?? null },
        change ? acceptedIdsOf(change.verdict) : [],
      );
      // The record call ended the turn, whatever it answered.
      recorded = true;
      if (!stored.ok && stored.code === "stale_comparison") continue;
      if (!stored.ok) return stored;
      return {
        ok: true,
        contract: stored.contract,
        verdictRecord: stored.verdict,
        verdict,
        projectCreated: stored.projectCreated,
        contentReused: stored.contentReused,
        change,
      };
    } finally {
      // Harmless if the turn already ended: the store ignores a ticket that is not the current one.
      if (!recorded) await store.endContractUpload(project, turn.ticket);
    }
  }
  return {
    ok: false,
    code: "busy",
    message: `Contract versions of "${project}" were activated by hand while this one was being compared; upload it again.`,
  };
}

export interface SnapshotMeta {
  commit: string;
  branch: string | null;
  runUrl: string | null;
}

export type SnapshotUpload =
  | {
      ok: true;
      snapshot: SnapshotRecord;
      verdictRecord: VerdictRecord;
      verdict: Verdict;
      contract: ContractRecord;
      contentReused: boolean;
    }
  | { ok: false; code: "invalid_document"; problems: DocumentProblem[] }
  | StoreFailure;

/** Where a snapshot upload goes and what it reads first: the project's place and its store's upload context. */
export interface SnapshotUploadStart {
  place: ProjectPlace;
  context: UploadContext;
}

/** Asked before the body is read (the REST route refuses early when there is nothing to check against). */
export async function startSnapshotUpload(
  env: Env,
  organizationId: string,
  project: string,
): Promise<SnapshotUploadStart> {
  const place = await projectPlace(env, organizationId, project);
  return { place, context: await place.store.uploadContext(project) };
}

/**
 * `bytesHolder.bytes` is released (set to undefined) once stored, so the body buffer can be collected before the
 * contract is decoded. `start` is what the caller already asked (startSnapshotUpload); without it, it is asked here.
 */
export async function uploadSnapshot(
  env: Env,
  who: Uploader,
  project: string,
  meta: SnapshotMeta,
  bytesHolder: { bytes?: Uint8Array },
  start?: SnapshotUploadStart,
): Promise<SnapshotUpload> {
  const { place, context } = start ?? (await startSnapshotUpload(env, who.organizationId, project));
  const { store } = place;
  if (!bytesHolder.bytes) throw new Error("no snapshot bytes");
  // No local reference to the bytes: the holder is the only one, so clearing it frees them.
  const parsed = parseDocumentBytes(bytesHolder.bytes);
  if (!parsed.ok) return { ok: false, code: "invalid_document", problems: parsed.problems };
  const { active: contract, activeSource, projectExists, storage, acceptances } = context;
  if (!contract) {
    return projectExists
      ? {
          ok: false,
          code: "no_active_contract",
          message: `Project "${project}" has no active contract: upload one with POST /api/v1/projects/${project}/contracts.`,
        }
      : { ok: false, code: "unknown_project", message: `There is no project "${project}".` };
  }
  const full = await storageRefusal(env, who.organizationId, await quotaUse(place, storage), {
    project,
    bytes: bytesHolder.bytes.byteLength,
  });
  if (full) return full;
  const size = bytesHolder.bytes.byteLength;
  const hash = await sha256Digest(bytesHolder.bytes);
  // The snapshot's bytes go out while the contract's come in: both are waits on storage.
  const [content, contractBytes] = await Promise.all([
    prepareContent(place, bytesHolder.bytes, hash),
    activeSource ? readPieces(place, activeSource) : null,
  ]);
  bytesHolder.bytes = undefined;
  const contractDocument = activeSource
    ? await readSource(place, activeSource, contract.contentHash, contractBytes)
    : null;
  if (!contractDocument)
    return {
      ok: false,
      code: "missing_content",
      message: `The stored document of contract version ${contract.version} cannot be read; upload the contract again.`,
    };
  const config = withAcceptances(await conformanceConfigFor(env, who.organizationId), acceptances ?? []);
  const verdict = await withUsageEvidence(
    env,
    who.organizationId,
    project,
    checkConformance(contractDocument, parsed.document, config),
    config,
  );
  const stored = await store.recordSnapshot(
    {
      project,
      contractVersion: contract.version,
      commit: meta.commit,
      branch: meta.branch,
      runUrl: meta.runUrl,
      document: { contentHash: hash, size, ...parsed.facts },
      uploadedBy: who.uploadedBy,
    },
    encodeVerdict(verdict),
    content.pieces,
    acceptedIdsOf(verdict),
  );
  if (!stored.ok) return stored;
  return {
    ok: true,
    snapshot: stored.snapshot,
    verdictRecord: stored.verdict,
    verdict,
    contract,
    contentReused: stored.contentReused,
  };
}

/**
 * Refuses a snapshot upload before its body is read when the store has no room for `declaredBytes` (its
 * Content-Length): CI does not send 13 MB to hear "no room".
 */
export async function refuseWhenFull(
  env: Env,
  organizationId: string,
  project: string,
  start: SnapshotUploadStart,
  declaredBytes: number,
): Promise<void> {
  const use = await quotaUse(start.place, start.context.storage);
  const full = await storageRefusal(env, organizationId, use, { project, bytes: declaredBytes });
  if (full) throw storeFailure(full, project);
}
