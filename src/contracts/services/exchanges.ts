/**
 * Recorded traffic (HAR 1.2 or NDJSON) checked against a contract version and recorded as the project's latest
 * traffic verdict. Transport-free: REST (and any later MCP upload tool) maps the tagged failures to its answers.
 * The exchanges are read, validated and dropped: only their count, the upload's digest, the verdict and their
 * usage counts (src/engine/verdict/usage.ts: operations, statuses, parameter names, property paths; never a value) are
 * kept, because recordings carry credentials and personal data.
 */
import type { Env } from "../../env";
import { MAX_EXCHANGE_BODY_BYTES, MAX_EXCHANGES, type ExchangeProblem, type ParsedExchanges } from "../../engine";
import { parseExchanges } from "../../engine";
import { indexDocument } from "../../engine";
import { countExchangeUsage } from "../../engine";
import { createExchangeValidator } from "../../engine";
import { encodeVerdict } from "../../engine";
import { projectPlace } from "../store/client";
import { quotaUse, storageRefusal } from "./storage";
import { sha256Digest } from "../../lib/sha256";
import type { ContractRecord, ExchangeRunRecord, Page, StoreFailure } from "../store/records";
import { Failure } from "../../core/failure";
import type { ContractsCaller } from "./caller";
import { storeFailure } from "./failure";
import { projectPage, requireProject } from "./projects";
import { projectStoreOf } from "./store-access";
import type { Verdict } from "../../engine";
import { WorkBudgetExhausted } from "../../engine";
import { contractVersion, isFailure, storedDocument, type SpecCheckFailure } from "./drafts";

/**
 * One validator cache per isolate, keyed by organization and contract content hash (the stored bytes never change
 * under a hash), so validators built for one upload serve the next against the same contract version.
 */
const validator = createExchangeValidator();

export type ExchangesFailure =
  | SpecCheckFailure
  | { ok: false; code: "invalid_exchanges"; message: string; problems: ExchangeProblem[] }
  | { ok: false; code: "too_many_exchanges"; message: string; count: number }
  | { ok: false; code: "exchange_body_too_large"; message: string; pointer: string; bytes: number }
  | { ok: false; code: "work_budget_exhausted"; message: string; limit: number }
  | StoreFailure;

/** Lets the isolate serve other requests (other organizations' among them) between slices of a long validation. */
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export interface ExchangesMeta {
  commit: string | null;
  branch: string | null;
  runUrl: string | null;
}

export interface ExchangesChecked {
  ok: true;
  run: ExchangeRunRecord;
  contract: ContractRecord;
  verdict: Verdict;
}

function unreadable(parsed: Exclude<ParsedExchanges, { ok: true }>): ExchangesFailure {
  switch (parsed.code) {
    case "invalid_exchanges": {
      const first = parsed.problems[0];
      return {
        ok: false,
        code: "invalid_exchanges",
        message: `The upload is not a readable HAR 1.2 file or NDJSON of exchanges (${parsed.problems.length}${parsed.problems.length >= 20 ? " or more" : ""} problem${parsed.problems.length === 1 ? "" : "s"}${first ? `, first: ${first.pointer || "(upload)"}: ${first.message}` : ""}). Nothing was stored; fix the file and upload it again.`,
        problems: parsed.problems,
      };
    }
    case "too_many_exchanges":
      return {
        ok: false,
        code: "too_many_exchanges",
        count: parsed.count,
        message: `The upload holds ${parsed.count} exchanges, more than the ${MAX_EXCHANGES} accepted at once: split the recording and upload the parts one by one.`,
      };
    case "exchange_body_too_large":
      return {
        ok: false,
        code: "exchange_body_too_large",
        pointer: parsed.pointer,
        bytes: parsed.bytes,
        message: `The body at ${parsed.pointer} is ${parsed.bytes} bytes, more than the ${MAX_EXCHANGE_BODY_BYTES} bytes accepted per body: leave that exchange out or shorten its body.`,
      };
  }
}

export async function recordExchanges(
  env: Env,
  who: { organizationId: string; uploadedBy: string },
  project: string,
  bytes: Uint8Array,
  contentType: string | undefined,
  meta: ExchangesMeta,
  version?: number,
): Promise<ExchangesChecked | ExchangesFailure> {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return unreadable({
      ok: false,
      code: "invalid_exchanges",
      problems: [{ pointer: "", message: "the body is not valid UTF-8 text" }],
    });
  }
  const parsed = parseExchanges(text, contentType);
  if (!parsed.ok) return unreadable(parsed);
  const contract = await contractVersion(env, who.organizationId, project, version);
  if (isFailure(contract)) return contract;
  // The exchanges are not kept (a digest and the verdict are): refused only when storage is already full.
  const place = await projectPlace(env, who.organizationId, project);
  const { store } = place;
  const full = await storageRefusal(env, who.organizationId, await quotaUse(place), { project, bytes: 0 });
  if (full) return full;
  const document = await storedDocument(env, who.organizationId, contract);
  if (isFailure(document)) return document;
  let verdict: Verdict;
  try {
    verdict = await validator.validateYielding(
      document,
      `${who.organizationId}\n${contract.contentHash}`,
      parsed.exchanges,
      pause,
    );
  } catch (error) {
    if (!(error instanceof WorkBudgetExhausted)) throw error;
    return {
      ok: false,
      code: "work_budget_exhausted",
      limit: error.limit,
      message: `Cannot verify the recorded traffic: ${error.message}. Nothing was stored.`,
    };
  }
  // The usage index keeps what the exchanges exercised (operations, statuses, parameter names, property paths).
  const usage = countExchangeUsage(indexDocument(document), parsed.exchanges);
  const stored = await store.recordExchangeRun(
    {
      project,
      contractVersion: contract.version,
      format: parsed.format,
      exchangeCount: parsed.exchanges.length,
      uploadDigest: await sha256Digest(bytes),
      commit: meta.commit,
      branch: meta.branch,
      runUrl: meta.runUrl,
      uploadedBy: who.uploadedBy,
    },
    // Counted from the summary: the verdict lists at most MAX_EXCHANGE_VIOLATIONS_LISTED violations.
    {
      ...encodeVerdict(verdict),
      errorCount: verdict.summary
        .filter((entry) => entry.severity === "error")
        .reduce((sum, entry) => sum + entry.count, 0),
    },
    usage,
  );
  if (!stored.ok) return stored;
  return { ok: true, run: stored.run, contract, verdict };
}

/** A recording's failure as every surface answers it (docs/ci.md "REST errors"). */
export function exchangesFailure(result: ExchangesFailure, project: string): Failure {
  switch (result.code) {
    case "invalid_exchanges":
      return new Failure("unprocessable", result.message, { problems: result.problems }, result.code);
    case "too_many_exchanges":
      return new Failure("unprocessable", result.message, { count: result.count }, result.code);
    case "exchange_body_too_large":
      return new Failure("too_large", result.message, { pointer: result.pointer, bytes: result.bytes }, result.code);
    case "work_budget_exhausted":
      return new Failure("unprocessable", result.message, { limit: result.limit }, result.code);
    case "invalid_document":
      // The same problem as an upload's invalid document, and the same answer.
      return new Failure("unprocessable", result.message, {}, result.code);
    default:
      // What the store answers: the same failures as every other contract use case's.
      return storeFailure(result, project);
  }
}

/** The project's recorded-traffic runs, newest first, a page at a time. */
export async function listExchangeRuns(
  caller: ContractsCaller,
  project: string,
  page: { limit: number; before: number | null },
): Promise<Page<ExchangeRunRecord>> {
  return projectPage(caller, project, (store) => store.listExchangeRuns(project, page.limit, page.before));
}

/** The project's latest recorded-traffic run, or null when it has none; unknown_project when there is no project. */
export async function latestExchangeRun(caller: ContractsCaller, project: string): Promise<ExchangeRunRecord | null> {
  await requireProject(caller, project);
  return (await projectStoreOf(caller, project)).latestExchangeRun(project);
}

/** Run `id` of the project, or null when there is no such run. */
export async function findExchangeRun(
  caller: ContractsCaller,
  project: string,
  id: number,
): Promise<ExchangeRunRecord | null> {
  return (await projectStoreOf(caller, project)).getExchangeRun(project, id);
}
