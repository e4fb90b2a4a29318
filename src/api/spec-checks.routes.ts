/**
 * Checks that store nothing (docs/ci.md "Check a draft" and "Contract evolution"):
 *
 *   POST /api/v1/projects/:project/drafts?contractVersion=           contracts.read   a local build's document -> verdict
 *   POST /api/v1/projects/:project/contracts/compare?from=&to=       contracts.read   what `to` (a version, or the edited
 *                                                                                      contract as the body) breaks for
 *                                                                                      clients of `from` (default active)
 *   GET  /api/v1/projects/:project/contracts/:version/changes        contracts.read   the comparison stored at upload
 *
 * Every answer takes ?format= / ?formats= like the other verdict routes. A draft's audit record keeps its digest.
 */
import { Failure } from "../core/failure";
import { z } from "zod";
import { checkDraft, compareContracts } from "../contracts/services/drafts";
import { changeSummary, findContractChanges } from "../contracts/services/contract-versions";
import { contractFailure, serviceFailure } from "../contracts/services/failure";
import { invalidQuery, positiveInt, projectRoute, queryObject, readDocument } from "./contracts-http";
import type { ApiRoute } from "./router";
import { bytesForLocations, reportFacts, requestedFormats, verdictAnswer } from "./verdict-answer";

const version = z
  .string()
  .regex(/^\d{1,15}$/, "a contract version number such as 3")
  .transform(Number)
  .refine((value) => value >= 1, "a contract version number such as 3");

/** "sha256:6fc4…" cut to 16 hex digits, short enough to survive the audit log's redaction of opaque strings. */
function shortDigest(digest: string): string {
  return digest.slice(0, "sha256:".length + 16);
}

export const specCheckRoutes: ApiRoute[] = [
  projectRoute("POST", "/drafts", ["contracts.read"], async (input) => {
    const query = z
      .object({ contractVersion: version.optional() })
      .safeParse(queryObject(input.url, ["contractVersion"]));
    if (!query.success) throw invalidQuery(query.error);
    const formats = requestedFormats(input.url);
    const body = await readDocument(input.request);
    const result = await checkDraft(
      input.env,
      input.principal.organizationId,
      input.project,
      body.holder.bytes!,
      query.data.contractVersion,
    );
    if (!result.ok) throw serviceFailure(result, input.project);
    // Audit reasons drop long opaque strings (they look like credentials): 64 bits of the digest identify a draft.
    input.note(`draft ${shortDigest(result.digest)}`);
    const contract = `v${result.contract.version}${result.contract.label ? ` (${result.contract.label})` : ""}`;
    const report = {
      subject: "draft" as const,
      project: input.project,
      contractVersion: contract,
      title: `draft ${result.digest.slice(0, 19)}`,
      verdict: result.verdict,
      ...reportFacts(
        input.url,
        input.project,
        undefined,
        input.env.PUBLIC_URL,
        bytesForLocations(formats.choice, body.holder.bytes),
      ),
    };
    return verdictAnswer(
      formats.choice,
      {
        project: input.project,
        source: "draft",
        stored: false,
        draft: { digest: result.digest, operationCount: result.operationCount },
        contract: { version: result.contract.version, label: result.contract.label },
        verdict: result.verdict,
      },
      report,
    );
  }),

  projectRoute("POST", "/contracts/compare", ["contracts.read"], async (input) => {
    const query = z
      .object({ from: version.optional(), to: version.optional() })
      .safeParse(queryObject(input.url, ["from", "to"]));
    if (!query.success) throw invalidQuery(query.error);
    const formats = requestedFormats(input.url);
    let to: { version: number } | { bytes: Uint8Array };
    if (query.data.to !== undefined) {
      to = { version: query.data.to };
    } else {
      const body = await readDocument(input.request).catch((error: unknown) => {
        // Without ?to=, the body is the edited contract: say so when there is none.
        if (error instanceof Failure && error.code === "empty_body")
          throw new Failure(
            "invalid_input",
            "Send the edited contract (JSON or YAML) as the body, or name a stored version with ?to=<version>.",
            {},
            "empty_body",
          );
        throw error;
      });
      to = { bytes: body.holder.bytes! };
    }
    const result = await compareContracts(
      input.env,
      input.principal.organizationId,
      input.project,
      query.data.from,
      to,
    );
    if (!result.ok) throw serviceFailure(result, input.project);
    const summary = changeSummary(result.from.version, result.verdict);
    input.note(
      `${summary.count} breaking changes vs v${result.from.version}${result.digest ? ` (edited contract ${shortDigest(result.digest)})` : ""}`,
    );
    const toName = result.to ? `v${result.to.version}` : "the edited contract";
    const report = {
      subject: "contract-change" as const,
      project: input.project,
      contractVersion: `v${result.from.version}`,
      title: `v${result.from.version} → ${toName}`,
      verdict: result.verdict,
      ...reportFacts(input.url, input.project, undefined, input.env.PUBLIC_URL),
    };
    return verdictAnswer(
      formats.choice,
      {
        project: input.project,
        from: { version: result.from.version, label: result.from.label },
        to: result.to ? { version: result.to.version, label: result.to.label } : { document: result.digest },
        breakingChanges: summary,
        verdict: result.verdict,
      },
      report,
    );
  }),

  projectRoute("GET", "/contracts/:version/changes", ["contracts.read"], async (input) => {
    const parsed = positiveInt(input.params.version, "version");
    const formats = requestedFormats(input.url);
    const found = await findContractChanges(input, input.project, parsed.value);
    if (!found)
      throw contractFailure("unknown_contract", `Project "${input.project}" has no contract version ${parsed.value}.`);
    const { contract, changes: verdict } = found;
    if (!contract.changes || !found.compared) {
      throw new Failure(
        "not_found",
        `Contract version ${parsed.value} of "${input.project}" was not compared with another version (it was the project's first): compare any two with POST /api/v1/projects/${input.project}/contracts/compare?from=<a>&to=<b>.`,
        {},
        "no_comparison",
      );
    }
    if (!verdict) throw new Failure("conflict", "The stored comparison cannot be read.", {}, "missing_content");
    const report = {
      subject: "contract-change" as const,
      project: input.project,
      contractVersion: `v${contract.changes.comparedWithVersion}`,
      title: `v${contract.changes.comparedWithVersion} → v${contract.version}`,
      verdict,
      ...reportFacts(input.url, input.project, undefined, input.env.PUBLIC_URL),
    };
    return verdictAnswer(
      formats.choice,
      {
        project: input.project,
        contract,
        breakingChanges: changeSummary(contract.changes.comparedWithVersion, verdict),
      },
      report,
    );
  }),
];
