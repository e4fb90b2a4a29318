/**
 * Payload validation for validate_response_payload. ONE validator cache per isolate (module level): validators are
 * keyed by organization, contract content hash, operation, response entry and media type, so repeated validation
 * against the same contract version and operation reuses the built validator (the engine's buildCount shows it).
 */
import { createPayloadValidator } from "../../engine";
import type { ContractRecord } from "../store/records";
import type { PayloadCheckInput, PayloadVerdict } from "../../engine";
import { contractLabel, resolveContract } from "./conformance";
import { documentKey, loadDocument } from "./documents";
import { cannotVerify } from "./failure";
import { requireProjectStatus } from "./project-access";
import type { ContractsCaller } from "./caller";

type Context = ContractsCaller;

const validator = createPayloadValidator();

/** Validators built so far in this isolate (cache misses). */
export function payloadValidatorBuildCount(): number {
  return validator.buildCount;
}

export interface PayloadOutcome {
  contract: ContractRecord;
  verdict: PayloadVerdict;
  /** Validators this call had to build: 0 when the cached one was used (or none was needed). */
  validatorsBuilt: number;
}

export async function validatePayload(
  context: Context,
  project: string,
  contractVersion: number | undefined,
  input: PayloadCheckInput,
): Promise<PayloadOutcome> {
  const status = await requireProjectStatus(context, project);
  const contract = await resolveContract(context, project, contractVersion, status.activeContract);
  const document = await loadDocument(context.env, context.principal.organizationId, contract);
  if (!document) {
    throw cannotVerify(
      "document_unreadable",
      `The stored document of contract ${contractLabel(contract)} of "${project}" cannot be read: upload the contract again (POST /api/v1/projects/${project}/contracts).`,
    );
  }
  // validate() is synchronous, so the difference counts this call's builds only.
  const before = validator.buildCount;
  const verdict = validator.validate(
    document,
    documentKey(context.principal.organizationId, contract.contentHash),
    input,
  );
  return { contract, verdict, validatorsBuilt: validator.buildCount - before };
}
