/**
 * Checks that store nothing: a draft (the OpenAPI document of a local build) against a contract version, and one
 * contract against another (stored versions, or an edited contract not uploaded yet). Transport-free: REST, MCP
 * and the CLI's routes map the tagged failures to their own answers. A draft never becomes a snapshot, never
 * "latest", and never notifies anyone; only its digest is kept, in the caller's audit record.
 */
import type { Env } from "../../env";
import { conformanceConfigFor } from "./organization-config";
import { withAcceptances } from "./acceptances";
import { withUsageEvidence } from "./usage";
import type { ConformanceConfig } from "../../engine";
import { checkConformance, compareContractVersions } from "../../engine";
import { projectPlace } from "../store/client";
import { sha256Digest } from "../../lib/sha256";
import type { ContractRecord } from "../store/records";
import { loadStoredDocument } from "./uploads";
import { parseDocumentBytes } from "../../engine";
import type { DocumentProblem, OpenApiDocument, Verdict } from "../../engine";

/** Largest draft an MCP tool call may carry (the MCP message as a whole is limited to 4 MiB). */
export const MAX_MCP_DRAFT_BYTES = 1024 * 1024;

export type SpecCheckFailure =
  | { ok: false; code: "invalid_document"; message: string; problems: DocumentProblem[] }
  | {
      ok: false;
      code: "unknown_project" | "no_active_contract" | "unknown_contract" | "missing_content";
      message: string;
    };

export interface DraftVerdict {
  ok: true;
  verdict: Verdict;
  contract: ContractRecord;
  /** sha256 of the draft's bytes: what the audit record keeps of it. */
  digest: string;
  operationCount: number;
}

export interface ContractComparison {
  ok: true;
  from: ContractRecord;
  /** The stored version compared with, or null for an edited contract that was passed as a document. */
  to: ContractRecord | null;
  verdict: Verdict;
  digest?: string;
}

function invalidDocument(problems: DocumentProblem[], what: string): SpecCheckFailure {
  const first = problems[0];
  return {
    ok: false,
    code: "invalid_document",
    message: `The ${what} is not a valid OpenAPI document (${problems.length} problem${problems.length === 1 ? "" : "s"}${first ? `, first: ${first.path || "(document)"}: ${first.message}` : ""}): fix it and check again.`,
    problems,
  };
}

export async function contractVersion(
  env: Env,
  organizationId: string,
  project: string,
  version: number | undefined,
): Promise<ContractRecord | SpecCheckFailure> {
  const { store } = await projectPlace(env, organizationId, project);
  if (version === undefined) {
    const active = await store.getActiveContract(project);
    if (active) return active;
    return (await store.getProject(project))
      ? {
          ok: false,
          code: "no_active_contract",
          message: `Project "${project}" has no active contract: upload or activate one first.`,
        }
      : {
          ok: false,
          code: "unknown_project",
          message: `There is no project "${project}" in your organization: a project is created by its first contract upload.`,
        };
  }
  const contract = await store.getContract(project, version);
  if (contract) return contract;
  return (await store.getProject(project))
    ? {
        ok: false,
        code: "unknown_contract",
        message: `Project "${project}" has no contract version ${version}: list its versions to see which exist.`,
      }
    : {
        ok: false,
        code: "unknown_project",
        message: `There is no project "${project}" in your organization: a project is created by its first contract upload.`,
      };
}

export async function storedDocument(
  env: Env,
  organizationId: string,
  contract: ContractRecord,
): Promise<OpenApiDocument | SpecCheckFailure> {
  const document = await loadStoredDocument(
    await projectPlace(env, organizationId, contract.project),
    contract.contentHash,
  );
  return (
    document ?? {
      ok: false,
      code: "missing_content",
      message: `The stored document of contract version ${contract.version} cannot be read; upload it again.`,
    }
  );
}

/** The organization's configuration with the project's accepted breaks in force (a draft sees what CI will). */
async function projectConfig(env: Env, organizationId: string, project: string) {
  const [config, acceptances] = await Promise.all([
    conformanceConfigFor(env, organizationId),
    projectPlace(env, organizationId, project).then(({ store }) => store.acceptancesInForce(project)),
  ]);
  return withAcceptances(config, acceptances);
}

/** A verdict computed with the project's configuration, with the usage evidence of its breaks. */
async function evidenced(
  env: Env,
  organizationId: string,
  project: string,
  check: (config: ConformanceConfig) => Verdict,
): Promise<Verdict> {
  const config = await projectConfig(env, organizationId, project);
  return withUsageEvidence(env, organizationId, project, check(config), config);
}

export const isFailure = (value: unknown): value is SpecCheckFailure =>
  typeof value === "object" && value !== null && (value as { ok?: unknown }).ok === false;

/** The verdict of a draft against the active contract (or `version`), exactly as a snapshot upload computes it. */
export async function checkDraft(
  env: Env,
  organizationId: string,
  project: string,
  bytes: Uint8Array,
  version?: number,
): Promise<DraftVerdict | SpecCheckFailure> {
  const digest = await sha256Digest(bytes);
  const parsed = parseDocumentBytes(bytes);
  if (!parsed.ok) return invalidDocument(parsed.problems, "draft");
  const contract = await contractVersion(env, organizationId, project, version);
  if (isFailure(contract)) return contract;
  const contractDocument = await storedDocument(env, organizationId, contract);
  if (isFailure(contractDocument)) return contractDocument;
  return {
    ok: true,
    verdict: await evidenced(env, organizationId, project, (config) =>
      checkConformance(contractDocument, parsed.document, config),
    ),
    contract,
    digest,
    operationCount: parsed.facts.operationCount,
  };
}

/**
 * What `to` breaks for clients of `from` (default: the active version): `to` is a stored version or the bytes
 * of an edited contract. The same comparison a contract upload records.
 */
export async function compareContracts(
  env: Env,
  organizationId: string,
  project: string,
  fromVersion: number | undefined,
  to: { version: number } | { bytes: Uint8Array },
): Promise<ContractComparison | SpecCheckFailure> {
  const from = await contractVersion(env, organizationId, project, fromVersion);
  if (isFailure(from)) return from;
  let next: OpenApiDocument;
  let toRecord: ContractRecord | null = null;
  let digest: string | undefined;
  if ("version" in to) {
    const record = await contractVersion(env, organizationId, project, to.version);
    if (isFailure(record)) return record;
    const document = await storedDocument(env, organizationId, record);
    if (isFailure(document)) return document;
    next = document;
    toRecord = record;
  } else {
    digest = await sha256Digest(to.bytes);
    const parsed = parseDocumentBytes(to.bytes);
    if (!parsed.ok) return invalidDocument(parsed.problems, "edited contract");
    next = parsed.document;
  }
  const previous = await storedDocument(env, organizationId, from);
  if (isFailure(previous)) return previous;
  return {
    ok: true,
    from,
    to: toRecord,
    verdict: await evidenced(env, organizationId, project, (config) =>
      compareContractVersions(previous, next, config, {
        from: `v${from.version}`,
        to: toRecord ? `v${toRecord.version}` : "the edited contract",
      }),
    ),
    ...(digest ? { digest } : {}),
  };
}
