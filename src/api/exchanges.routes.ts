/**
 * Recorded traffic (docs/validation.md "Recorded traffic"): CI uploads the HTTP exchanges its integration tests recorded,
 * as a HAR 1.2 file or NDJSON, and gets a verdict on whether real requests and responses conform to the
 * contract; the latest run per project is what the console and the MCP tool spec_exchanges_latest show.
 *
 *   POST /api/v1/projects/:project/exchanges?contractVersion=&commit=&branch=&runUrl=   snapshots.write
 *   GET  /api/v1/projects/:project/exchanges                                             contracts.read
 *   GET  /api/v1/projects/:project/exchanges/latest                                      contracts.read
 *   GET  /api/v1/projects/:project/exchanges/:id                                         contracts.read
 *
 * Every verdict route takes ?format= / ?formats= (verdict-answer.ts).
 */
import { Failure } from "../core/failure";
import { z } from "zod";
import { MAX_EXCHANGES_UPLOAD_BYTES } from "../engine";
import { renderVerdictMarkdown } from "../engine";
import {
  exchangesFailure,
  findExchangeRun,
  latestExchangeRun,
  listExchangeRuns,
  recordExchanges,
} from "../contracts/services/exchanges";
import { verdictBody } from "../contracts/services/verdicts";
import { readBodyLimited } from "../lib/body";
import type { ExchangeRunRecord } from "../contracts/store/records";
import type { Verdict } from "../engine";
import { invalidQuery, json, pageQuery, positiveInt, projectRoute, queryObject, tooLarge } from "./contracts-http";
import { branchText, commitText, runUrlText } from "./contracts.routes";
import type { ApiRequest, ApiRoute } from "./router";
import { reportFacts, requestedFormats, verdictAnswer } from "./verdict-answer";

const READ = ["contracts.read"] as const;

const uploadQuery = z.object({
  contractVersion: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, "a contract version number such as 3")
    .optional()
    .describe("Check against this version instead of the active one"),
  commit: commitText.optional(),
  branch: branchText.optional(),
  runUrl: runUrlText.optional(),
});

function runTitle(run: ExchangeRunRecord): string {
  return `recorded traffic run #${run.id} (${run.exchangeCount} exchange${run.exchangeCount === 1 ? "" : "s"}${run.commit ? `, commit ${run.commit}` : ""})`;
}

function report(input: ApiRequest & { project: string; url: URL }, run: ExchangeRunRecord, verdict: Verdict) {
  const base = input.env.PUBLIC_URL.replace(/\/+$/, "");
  return {
    subject: "exchanges" as const,
    project: input.project,
    contractVersion: `v${run.contractVersion}`,
    title: runTitle(run),
    verdict,
    ...reportFacts(input.url, input.project, undefined, input.env.PUBLIC_URL),
    link: `${base}/api/v1/projects/${encodeURIComponent(input.project)}/exchanges/${run.id}`,
  };
}

async function runWithVerdict(
  input: ApiRequest & { project: string; url: URL },
  run: ExchangeRunRecord | null,
  missing: () => Failure,
): Promise<Response> {
  const formats = requestedFormats(input.url);
  if (!run) throw missing();
  const verdict = await verdictBody(input, input.project, run.verdictHash);
  if (!verdict)
    throw new Failure(
      "not_found",
      `The verdict of recorded traffic run ${run.id} of "${input.project}" cannot be read: upload the recording again.`,
      {},
      "no_verdict",
    );
  return verdictAnswer(formats.choice, { project: input.project, run, verdict }, report(input, run, verdict));
}

export const exchangeRoutes: ApiRoute[] = [
  projectRoute("POST", "/exchanges", ["snapshots.write"], async (input) => {
    const query = uploadQuery.safeParse(queryObject(input.url, ["contractVersion", "commit", "branch", "runUrl"]));
    if (!query.success) throw invalidQuery(query.error);
    const formats = requestedFormats(input.url);
    const read = await readBodyLimited(input.request, MAX_EXCHANGES_UPLOAD_BYTES);
    if (!read.ok) {
      if (read.reason === "too_large") throw tooLarge(MAX_EXCHANGES_UPLOAD_BYTES, "recording");
      if (read.reason === "empty")
        throw new Failure(
          "invalid_input",
          "The request body is empty: send a HAR 1.2 file (Content-Type application/json) or NDJSON exchanges (application/x-ndjson).",
          {},
          "empty_body",
        );
      throw new Failure(
        "invalid_input",
        "The request body is shorter or longer than its Content-Length.",
        {},
        "invalid_body",
      );
    }
    const who = { organizationId: input.principal.organizationId, uploadedBy: input.principal.userId };
    const meta = {
      commit: query.data.commit ?? null,
      branch: query.data.branch ?? null,
      runUrl: query.data.runUrl ?? null,
    };
    const version = query.data.contractVersion === undefined ? undefined : Number(query.data.contractVersion);
    const result = await recordExchanges(
      input.env,
      who,
      input.project,
      read.bytes,
      input.request.headers.get("content-type") ?? undefined,
      meta,
      version,
    );
    if (!result.ok) throw exchangesFailure(result, input.project);
    const { run, verdict } = result;
    input.note(
      `${run.exchangeCount} exchanges (${run.format}), ${run.errorCount} errors, upload ${run.uploadDigest.slice(0, 23)}`,
    );
    const rendered = report(input, run, verdict);
    return verdictAnswer(
      formats.choice,
      {
        project: input.project,
        run,
        contract: { version: result.contract.version, label: result.contract.label },
        verdict,
        markdown: renderVerdictMarkdown(verdict, rendered),
      },
      rendered,
      201,
    );
  }),
  projectRoute("GET", "/exchanges", READ, async (input) => {
    const { items, nextBefore } = await listExchangeRuns(input, input.project, pageQuery(input.url));
    return json({ runs: items, nextBefore });
  }),
  projectRoute("GET", "/exchanges/latest", READ, async (input) => {
    const run = await latestExchangeRun(input, input.project);
    return runWithVerdict(
      input,
      run,
      () =>
        new Failure(
          "not_found",
          `Project "${input.project}" has no recorded traffic yet: upload a HAR file or NDJSON from CI (POST /api/v1/projects/${input.project}/exchanges, or arbiter exchanges FILE.har).`,
          {},
          "no_exchanges",
        ),
    );
  }),
  projectRoute("GET", "/exchanges/:id", READ, async (input) => {
    const id = positiveInt(input.params.id, "run id");
    const run = await findExchangeRun(input, input.project, id.value);
    return runWithVerdict(
      input,
      run,
      () =>
        new Failure(
          "not_found",
          `Project "${input.project}" has no recorded traffic run ${id.value}.`,
          {},
          "unknown_exchange_run",
        ),
    );
  }),
];
